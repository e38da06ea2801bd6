#!/usr/bin/env node
// Builds the web dashboard (web/) into web/dist with Vite's JS API. Runs from `prepare`
// (so `npm install` leaves a ready dashboard), from `npm start` with --if-missing, and
// from the dashboard tests. No config file: everything the build needs is here.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeFileSync } from 'node:fs';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', 'web');
const outDir = join(root, 'dist');
const args = new Set(process.argv.slice(2));

if (args.has('--if-missing') && existsSync(join(outDir, 'index.html'))) process.exit(0);

const { build } = await import('vite');
const { default: preact } = await import('@preact/preset-vite');

await build({
  root,
  configFile: false,
  base: '/',
  logLevel: args.has('--quiet') ? 'warn' : 'info',
  // Preact's devtools hooks and hook-name babel pass are for development only.
  plugins: [preact({ devToolsEnabled: false, prefreshEnabled: false })],
  build: {
    outDir,
    emptyOutDir: true,
    target: 'es2022',
    // Chromium, Firefox and Safari all support modulepreload; the polyfill would be an
    // extra script, and the CSP forbids inline ones anyway.
    modulePreload: { polyfill: false },
    // Inlined assets become data: URLs; the CSP allows images only from 'self' and data:,
    // fonts only from 'self', so keep everything as files.
    assetsInlineLimit: 0,
    chunkSizeWarningLimit: 250,
  },
});

precompress();
if (args.has('--sizes')) printSizes();

/**
 * Gzip and Brotli copies next to each asset: @fastify/static serves them (preCompressed)
 * to browsers that accept them, so the server never compresses per request.
 */
function precompress() {
  const assets = join(outDir, 'assets');
  for (const name of readdirSync(assets)) {
    if (!/\.(js|css|svg)$/.test(name)) continue;
    const bytes = readFileSync(join(assets, name));
    writeFileSync(join(assets, `${name}.gz`), gzipSync(bytes, { level: 9 }));
    writeFileSync(join(assets, `${name}.br`), brotliCompressSync(bytes, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11 } }));
  }
}

/** Gzip sizes of the emitted JS and CSS, for docs/dashboard.md. */
function printSizes() {
  const assets = join(outDir, 'assets');
  const rows = readdirSync(assets)
    .filter((name) => name.endsWith('.js') || name.endsWith('.css'))
    .map((name) => {
      const bytes = readFileSync(join(assets, name));
      return { file: relative(outDir, join(assets, name)), raw: statSync(join(assets, name)).size, gzip: gzipSync(bytes, { level: 9 }).length };
    })
    .sort((a, b) => b.gzip - a.gzip);
  for (const row of rows)
    console.log(`${row.file.padEnd(48)} ${(row.raw / 1024).toFixed(1).padStart(8)} kB ${(row.gzip / 1024).toFixed(1).padStart(8)} kB gzip`);
}
