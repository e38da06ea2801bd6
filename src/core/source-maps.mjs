// Stack traces of the compiled build name src/ files and lines, through the source maps
// scripts/build-server.mjs writes beside dist/. Called by bin/docwright.js and by each
// compiled worker-thread entry (every thread has its own setting), before dist/ loads.
// Plain JavaScript: bin/docwright.js imports it without a compiler.
import module from 'node:module';

/**
 * Only Docwright's own files (Node ≥ 22.14: module.setSourceMapsSupport with nodeModules
 * false). Turning maps on for everything, the only choice on Node 20, also reads the maps
 * many dependencies ship (the AI SDK's are megabytes) as they load and decodes them on the
 * first stack trace through them: 17 % more CPU to start `serve`, and a stall of ~300 ms on
 * the main thread. So on Node 20 traces name dist/ files (unminified; each module starts
 * with a `// src/…` comment) unless NODE_OPTIONS=--enable-source-maps asks for that cost.
 */
export function enableSourceMaps() {
  if (typeof module.setSourceMapsSupport === 'function') module.setSourceMapsSupport(true, { nodeModules: false, generatedCode: false });
}
