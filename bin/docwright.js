#!/usr/bin/env node
// Runs the compiled build (dist/, made by scripts/build-server.mjs on `npm install` or
// `npm run build`) with plain node: no TypeScript compiler in the process.
import { existsSync } from 'node:fs';
import { enableSourceMaps } from '../src/core/source-maps.mjs';

const entry = new URL('../dist/cli/main.js', import.meta.url);
if (!existsSync(entry)) {
  process.stderr.write(
    'docwright: the compiled build is missing (dist/cli/main.js): run `npm run build` in the Docwright directory (`npm install` does it too)\n',
  );
  process.exit(1);
}
// Before the first module of dist/ loads, so its stack traces name src/ files and lines.
enableSourceMaps();
await import(entry.href);
