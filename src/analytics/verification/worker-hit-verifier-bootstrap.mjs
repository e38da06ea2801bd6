// The module an ingest worker imports to build its verifier (IngestPool's `worker.module`),
// from the sources and compiled alike: scripts/build-server.mjs bundles this file into
// dist/analytics/verification/worker-hit-verifier.js. From the sources the ingest worker has
// registered tsx already, in its own thread.
const module = await import('./worker-hit-verifier.ts');

export const createHitVerifier = module.createHitVerifier;
