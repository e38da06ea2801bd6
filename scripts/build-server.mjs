#!/usr/bin/env node
// Builds the server and CLI (src/) into dist/ with esbuild, so production processes run
// plain JavaScript with `node` (bin/docwright.js runs dist/cli/main.js). Runs from
// `prepare` (npm install), from `npm start` and vitest's global setup with --if-stale, and
// as `npm run build`. No config file: everything the build needs is here.
//
//   node scripts/build-server.mjs [--if-stale] [--quiet]
//
// Entry points: the CLI, and every worker-thread entry, found as src/**/*-bootstrap.mjs
// (src/X-bootstrap.mjs → dist/X.js; src/core/runtime-paths.ts `workerEntry('X')` finds
// either). A new worker thread needs only its bootstrap file.
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SRC = join(ROOT, 'src');
/** The TypeScript SDK's source (packages/sdk): the CLI imports it, so the bundle holds it too. */
const SDK_SRC = join(ROOT, 'packages', 'sdk', 'src');
const DIST = join(ROOT, 'dist');
/** Written last: its presence means the build finished, its time is the build's. */
const STAMP = join(DIST, 'build-info.json');
const CLI_ENTRY = { in: 'src/cli/main.ts', out: 'cli/main' };
const BOOTSTRAP_SUFFIX = '-bootstrap.mjs';
/** The oldest Node release package.json's engines accepts. */
const TARGET = 'node20.19';

const args = new Set(process.argv.slice(2));
const quiet = args.has('--quiet');

/**
 * Newest modification time of what the build reads: src/ and the SDK's src/ (directories
 * too, so a deleted file counts), this script, package.json.
 */
function newestInput() {
  const sources = [SRC, SDK_SRC].filter((path) => existsSync(path));
  let newest = Math.max(...[...sources, fileURLToPath(import.meta.url), join(ROOT, 'package.json')].map((path) => statSync(path).mtimeMs));
  const walk = (directory) => {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      const path = join(directory, entry.name);
      newest = Math.max(newest, statSync(path).mtimeMs);
      if (entry.isDirectory()) walk(path);
    }
  };
  for (const source of sources) walk(source);
  return newest;
}

/** True when dist/ was built after the last change to its inputs (a pulled or edited file is newer). */
function isBuildFresh() {
  return existsSync(STAMP) && statSync(STAMP).mtimeMs >= newestInput();
}

function findBootstraps(directory) {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return findBootstraps(path);
    return entry.name.endsWith(BOOTSTRAP_SUFFIX) ? [path] : [];
  });
}

function entryPoints() {
  const workers = findBootstraps(SRC).map((path) => ({
    in: relative(ROOT, path),
    out: relative(SRC, path).slice(0, -BOOTSTRAP_SUFFIX.length),
  }));
  return [CLI_ENTRY, ...workers];
}

/** The package an import names (`@scope/name/sub` → `@scope/name`), or null for Node's own modules. */
function packageName(specifier) {
  if (specifier.startsWith('node:') || builtinModules.includes(specifier.split('/')[0])) return null;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/**
 * Every package the bundle leaves to Node must be a runtime dependency: a production
 * install (`npm ci --omit=dev`) has nothing else, and tsx must never be one.
 */
function checkExternalImports(metafile) {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const dependencies = new Set(Object.keys(manifest.dependencies ?? {}));
  const problems = new Set();
  for (const [file, output] of Object.entries(metafile.outputs)) {
    for (const imported of output.imports) {
      if (!imported.external) continue;
      const name = packageName(imported.path);
      if (name !== null && !dependencies.has(name)) problems.add(`${relative(ROOT, file)} imports ${imported.path}, not a dependency in package.json`);
    }
  }
  if (problems.size > 0) throw new Error(`build-server: ${[...problems].join('\n  ')}`);
}

async function build() {
  const { build: esbuild } = await import('esbuild');
  const started = performance.now();
  // Built beside dist/ and swapped in at the end, so a process running from dist/ never
  // loads half of an old build and half of a new one.
  const staging = join(ROOT, `.dist-building-${process.pid}`);
  rmSync(staging, { recursive: true, force: true });
  try {
    const result = await esbuild({
      absWorkingDir: ROOT,
      entryPoints: entryPoints(),
      outdir: staging,
      bundle: true,
      // Shared code goes to dist/chunks/ once, and what the CLI imports lazily (the
      // server, the database drivers) stays out of the modules `docwright --help` loads.
      splitting: true,
      chunkNames: 'chunks/[name]-[hash]',
      format: 'esm',
      platform: 'node',
      target: TARGET,
      // node_modules stay where npm put them: native addons (better-sqlite3, argon2) cannot
      // be bundled, and bundling the rest would only copy it.
      packages: 'external',
      // Stack traces point at src/ (bin/docwright.js turns source maps on). The sources
      // themselves ship beside dist/, so the maps need not carry them.
      sourcemap: 'linked',
      sourcesContent: false,
      // The worker bootstraps drop their tsx branch (see tool-worker-bootstrap.mjs).
      define: { 'import.meta.docwrightCompiled': 'true' },
      minifySyntax: true,
      metafile: true,
      logLevel: 'warning',
    });
    checkExternalImports(result.metafile);
    writeFileSync(
      join(staging, 'build-info.json'),
      `${JSON.stringify({ builtAt: new Date().toISOString(), node: process.version, entries: entryPoints().map((entry) => `${entry.out}.js`) }, null, 2)}\n`,
    );
    const old = join(ROOT, `.dist-old-${process.pid}`);
    if (existsSync(DIST)) renameSync(DIST, old);
    renameSync(staging, DIST);
    rmSync(old, { recursive: true, force: true });
    if (!quiet) {
      const bytes = Object.values(result.metafile.outputs).reduce((sum, output) => sum + output.bytes, 0);
      console.log(
        `build-server: dist/ in ${Math.round(performance.now() - started)} ms (${Object.keys(result.metafile.outputs).length} files, ${(bytes / 1024).toFixed(0)} kB)`,
      );
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (args.has('--if-stale')) {
    if (isBuildFresh()) process.exit(0);
    if (!quiet) console.log('build-server: dist/ is missing or older than src/, building it');
  }
  await build();
}
