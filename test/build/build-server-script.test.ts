import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';

/**
 * scripts/build-server.mjs on a copy of the package (src/, the script, package.json, the
 * real node_modules linked in), so its decisions can be watched without touching this
 * checkout's dist/.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
let copy: string;

function build(...args: string[]): { status: number | null; output: string } {
  const result = spawnSync(process.execPath, [join(copy, 'scripts', 'build-server.mjs'), ...args], { cwd: copy, encoding: 'utf8' });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

const builtAt = (): number => statSync(join(copy, 'dist', 'build-info.json')).mtimeMs;

/** Moves a file's modification time into the future, as a pull or an edit after the build would. */
function touchLater(path: string): void {
  const later = new Date(Date.now() + 60_000);
  utimesSync(path, later, later);
}

beforeAll(() => {
  copy = mkdtempSync(join(tmpdir(), 'docwright-build-script-'));
  cpSync(join(ROOT, 'src'), join(copy, 'src'), { recursive: true });
  // The CLI bundles the SDK's source (packages/sdk/src) by relative import.
  cpSync(join(ROOT, 'packages', 'sdk', 'src'), join(copy, 'packages', 'sdk', 'src'), { recursive: true });
  mkdirSync(join(copy, 'scripts'));
  cpSync(join(ROOT, 'scripts', 'build-server.mjs'), join(copy, 'scripts', 'build-server.mjs'));
  cpSync(join(ROOT, 'package.json'), join(copy, 'package.json'));
  symlinkSync(join(ROOT, 'node_modules'), join(copy, 'node_modules'));
});

afterAll(() => rmSync(copy, { recursive: true, force: true }));

describe('scripts/build-server.mjs', () => {
  test('builds the CLI and every *-bootstrap.mjs as an entry, and --if-stale rebuilds only after src/ changed', () => {
    const first = build('--quiet');
    expect(first.status, first.output).toBe(0);
    const info = JSON.parse(readFileSync(join(copy, 'dist', 'build-info.json'), 'utf8')) as { entries: string[] };
    expect(info.entries[0]).toBe('cli/main.js');
    expect(info.entries).toEqual(expect.arrayContaining(['agent/tools/tool-worker.js', 'analytics/ingest-worker.js']));
    for (const entry of info.entries) expect(existsSync(join(copy, 'dist', entry)), entry).toBe(true);
    // The compiled worker entries never load tsx: the build removed that branch.
    expect(readFileSync(join(copy, 'dist', 'agent', 'tools', 'tool-worker.js'), 'utf8')).not.toContain('tsx');

    const before = builtAt();
    expect(build('--if-stale').status).toBe(0);
    expect(builtAt()).toBe(before);

    touchLater(join(copy, 'src', 'core', 'ids.ts'));
    const rebuilt = build('--if-stale');
    expect(rebuilt.status, rebuilt.output).toBe(0);
    expect(rebuilt.output).toContain('older than src/');
    expect(builtAt()).toBeGreaterThan(before);
  });

  test('a new worker bootstrap becomes an entry by itself', () => {
    writeFileSync(
      join(copy, 'src', 'core', 'probe-worker-bootstrap.mjs'),
      "if (!import.meta.docwrightCompiled) await import('tsx/esm/api');\nawait import('./probe-worker.ts');\n",
    );
    writeFileSync(join(copy, 'src', 'core', 'probe-worker.ts'), "export const probe: string = 'probe';\n");
    try {
      const result = build('--quiet');
      expect(result.status, result.output).toBe(0);
      expect(existsSync(join(copy, 'dist', 'core', 'probe-worker.js'))).toBe(true);
    } finally {
      rmSync(join(copy, 'src', 'core', 'probe-worker-bootstrap.mjs'));
      rmSync(join(copy, 'src', 'core', 'probe-worker.ts'));
    }
  });

  test('refuses to emit an import of a package that is not a runtime dependency, and keeps the old build', () => {
    expect(build('--quiet').status).toBe(0);
    const before = builtAt();
    const file = join(copy, 'src', 'core', 'ids.ts');
    const original = readFileSync(file, 'utf8');
    writeFileSync(file, `import 'vitest';\n${original}`);
    try {
      const result = build('--quiet');
      expect(result.status).not.toBe(0);
      expect(result.output).toContain('imports vitest, not a dependency in package.json');
      expect(builtAt()).toBe(before);
    } finally {
      writeFileSync(file, original);
    }
  });
});
