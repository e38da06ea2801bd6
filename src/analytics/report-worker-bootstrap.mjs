// Entry of a report reader thread (see sqlite-report-pool.ts), from the sources and
// compiled alike, as ingest-worker-bootstrap.mjs: scripts/build-server.mjs bundles this
// file into dist/analytics/report-worker.js, with `import.meta.docwrightCompiled` true.
import { enableSourceMaps } from '../core/source-maps.mjs';

if (import.meta.docwrightCompiled) {
  // The main thread turned source maps on for itself (bin/docwright.js); a worker needs its own.
  enableSourceMaps();
} else {
  // A worker does not inherit the loader its parent registered at run time; the build
  // removes this branch, so the compiled worker never loads tsx.
  const { register } = await import('tsx/esm/api');
  register();
}
await import('./report-worker.ts');
