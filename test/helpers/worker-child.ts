import type { ChildProcess } from 'node:child_process';
import { processEnvironment, spawnDocwright } from './docwright-process.js';
import type { TestDatabase } from './test-database.js';

export interface WorkerChild {
  readonly process: ChildProcess;
  /** What the child logged so far (pino JSON lines, warn and above unless told otherwise). */
  log(): string;
  /** Resolves once the process has exited, however. */
  readonly exited: Promise<void>;
  /** SIGKILL (to its process group, git included), if still running, and wait for the exit. */
  kill(): Promise<void>;
}

/**
 * A `docwright worker` child process on the test's database and data dir, with only the
 * given environment (plus what every child needs), through the general harness
 * (docwright-process.ts). Faults are injected with signals on `process` (SIGKILL, SIGSTOP,
 * SIGCONT); `kill()` in an afterEach leaves nothing running.
 */
export function spawnWorker(database: TestDatabase, environment: Record<string, string>): WorkerChild {
  const child = spawnDocwright({ args: ['worker'], env: processEnvironment(database, { DOCWRIGHT_LOG_LEVEL: 'warn', ...environment }) });
  return {
    process: child.child,
    log: () => child.output(),
    exited: child.exited.then(() => undefined),
    kill: () => child.kill(),
  };
}
