import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { PACKAGE_ROOT, RUNNING_COMPILED, packagePath, workerEntry } from '../../src/core/runtime-paths.js';

const SRC = join(PACKAGE_ROOT, 'src');

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    return entry.isDirectory() ? sourceFiles(path) : [path];
  });
}

test('from the sources, paths resolve inside this checkout', () => {
  expect(RUNNING_COMPILED).toBe(false);
  expect(existsSync(packagePath('package.json'))).toBe(true);
  expect(existsSync(packagePath('migrations', 'sqlite'))).toBe(true);
  expect(fileURLToPath(workerEntry('agent/tools/tool-worker'))).toBe(join(SRC, 'agent', 'tools', 'tool-worker-bootstrap.mjs'));
});

test('every worker-thread bootstrap under src/ is an entry of the compiled build', () => {
  const bootstraps = sourceFiles(SRC)
    .filter((path) => path.endsWith('-bootstrap.mjs'))
    .map((path) => `${relative(SRC, path).slice(0, -'-bootstrap.mjs'.length)}.js`);
  expect(bootstraps.length).toBeGreaterThan(0);
  const info = JSON.parse(readFileSync(join(PACKAGE_ROOT, 'dist', 'build-info.json'), 'utf8')) as { entries: string[] };
  expect(info.entries).toEqual(expect.arrayContaining(bootstraps));
});

/**
 * esbuild moves every module into dist/cli/main.js or a dist/chunks/ file, so a path taken
 * relative to a module's own URL points elsewhere once compiled. Files that ship beside the
 * code are found through src/core/runtime-paths.ts instead.
 */
test('no module under src/ resolves a path from its own location, except runtime-paths.ts', () => {
  const offenders = sourceFiles(SRC)
    .filter((path) => /\.(ts|mjs)$/.test(path) && path !== join(SRC, 'core', 'runtime-paths.ts'))
    .filter((path) => /import\.meta\.(url|dirname|filename)|__dirname|__filename/.test(readFileSync(path, 'utf8')))
    .map((path) => relative(PACKAGE_ROOT, path));
  expect(offenders).toEqual([]);
});
