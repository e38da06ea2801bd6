import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * Where Docwright's own files are, the same whether this code runs from src/ (vitest, tsx)
 * or from the bundled build in dist/ (`bin/docwright.js`). A path taken relative to a
 * module's `import.meta.url` breaks once esbuild moves that module into dist/cli/main.js
 * or a dist/chunks/ file, so every path to a file that ships beside the code (migrations/,
 * web/dist/, a worker-thread entry) is resolved here instead.
 */

const HERE = fileURLToPath(import.meta.url);

/** True when this module runs from the compiled build (a .js file under dist/), false from the .ts sources. */
export const RUNNING_COMPILED = !HERE.endsWith('.ts');

/** The directory holding package.json: the nearest one above this module (src/core/ or dist/chunks/). */
function findPackageRoot(start: string): string {
  for (let directory = dirname(start); ; directory = dirname(directory)) {
    if (existsSync(join(directory, 'package.json'))) return directory;
    if (dirname(directory) === directory) throw new Error(`No package.json above ${start}`);
  }
}

export const PACKAGE_ROOT = findPackageRoot(HERE);

/** A path inside the package: `packagePath('migrations', 'sqlite')`. */
export function packagePath(...segments: string[]): string {
  return join(PACKAGE_ROOT, ...segments);
}

/**
 * The file a worker thread starts from, for the entry `name` (its path under src/ without
 * extension, e.g. 'agent/tools/tool-worker'). From the sources it is `src/NAME-bootstrap.mjs`,
 * which registers tsx in the new thread (a worker does not inherit the loader its parent
 * registered at run time); compiled it is `dist/NAME.js`, the bundle scripts/build-server.mjs
 * makes of that same bootstrap. Every `*-bootstrap.mjs` under src/ is built as an entry.
 */
export function workerEntry(name: string): URL {
  return pathToFileURL(RUNNING_COMPILED ? packagePath('dist', `${name}.js`) : packagePath('src', `${name}-bootstrap.mjs`));
}

/**
 * `require` as the package itself resolves it (its node_modules), the same from src/ and
 * dist/: for an optional CommonJS dependency loaded synchronously inside a try.
 */
export const requireFromPackage: NodeJS.Require = createRequire(packagePath('package.json'));
