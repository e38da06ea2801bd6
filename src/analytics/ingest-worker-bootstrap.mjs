// Entry of an ingest worker thread. Docwright runs its TypeScript sources through tsx,
// and a worker does not inherit the loader its parent registered at run time.
import { register } from 'tsx/esm/api';

register();
await import('./ingest-worker.ts');
