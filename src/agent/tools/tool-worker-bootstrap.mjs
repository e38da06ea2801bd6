// Entry of a tool worker thread (see tool-worker-pool.ts), from the sources and compiled
// alike: scripts/build-server.mjs bundles this file into dist/agent/tools/tool-worker.js,
// with `import.meta.docwrightCompiled` set to true.
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { enableSourceMaps } from '../../core/source-maps.mjs';

// First of all, this thread gives way: on a small machine its start-up (module loading)
// and a long compile must not take the CPU from the thread answering requests. Linux only
// (a thread's nice value is its own there; /proc/thread-self names it); elsewhere the
// worker keeps normal priority.
try {
  const threadId = Number(readlinkSync('/proc/thread-self').split('/').pop());
  if (Number.isInteger(threadId) && threadId > 0) setPriority(threadId, 10);
} catch {
  // Not Linux, or not allowed.
}

// The main thread turned source maps on for itself (bin/docwright.js); a worker needs its own.
if (import.meta.docwrightCompiled) enableSourceMaps();
// The compilers are plain JavaScript and are imported before tsx's register(): after it,
// each of their hundreds of modules goes through tsx's hooks, which made start-up half as
// slow again.
await import('@mdx-js/mdx');
await import('yaml');
if (!import.meta.docwrightCompiled) {
  // From the sources, a worker does not inherit the loader its parent registered at run
  // time. The build removes this branch, so the compiled worker never loads tsx.
  const { register } = await import('tsx/esm/api');
  register();
}
await import('./tool-worker.ts');
