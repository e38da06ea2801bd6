// Entry of a tool worker thread (see tool-worker-pool.ts). Docwright runs its TypeScript
// sources through tsx, and a worker does not inherit the loader its parent registered at
// run time.
//
// The compilers are plain JavaScript and are imported first: loaded after register(),
// each of their hundreds of modules goes through tsx's hooks, which made a worker's
// start-up about half as slow again.
await import('@mdx-js/mdx');
await import('yaml');
const { register } = await import('tsx/esm/api');

register();
await import('./tool-worker.ts');
