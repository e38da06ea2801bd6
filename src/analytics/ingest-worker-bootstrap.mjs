// Entry of an ingest worker thread (see ingest-pool.ts), from the sources and compiled
// alike: scripts/build-server.mjs bundles this file into dist/analytics/ingest-worker.js,
// with `import.meta.docwrightCompiled` set to true.
import { enableSourceMaps } from '../core/source-maps.mjs';

if (import.meta.docwrightCompiled) {
  // The main thread turned source maps on for itself (bin/docwright.js); a worker needs its own.
  enableSourceMaps();
} else {
  // From the sources, a worker does not inherit the loader its parent registered at run
  // time. The build removes this branch, so the compiled worker never loads tsx.
  const { register } = await import('tsx/esm/api');
  register();
}
await import('./ingest-worker.ts');
