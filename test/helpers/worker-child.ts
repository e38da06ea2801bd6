import { spawn, type ChildProcess } from 'node:child_process';
import { CLI } from './run-cli.js';
import { TEST_SECRET } from './test-app.js';
import type { TestDatabase } from './test-database.js';

export interface WorkerChild {
  readonly process: ChildProcess;
  /** What the child logged so far (pino JSON lines, warn and above unless told otherwise). */
  log(): string;
  /** Resolves once the process has exited, however. */
  readonly exited: Promise<void>;
  /** SIGKILL, if still running, and wait for the exit. */
  kill(): Promise<void>;
}

/**
 * A `docwright worker` child process on the test's database and data dir, with only the
 * given environment (plus what every child needs). Faults are injected with signals on
 * `process` (SIGKILL, SIGSTOP, SIGCONT); `kill()` in an afterEach leaves nothing running.
 */
export function spawnWorker(database: TestDatabase, environment: Record<string, string>): WorkerChild {
  const child = spawn(process.execPath, [CLI, 'worker'], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      DOCWRIGHT_DATA_DIR: database.dataDir,
      DOCWRIGHT_SECRET: TEST_SECRET,
      DOCWRIGHT_LOG_LEVEL: 'warn',
      ...(database.dialect === 'postgres' ? { DOCWRIGHT_DATABASE_URL: database.location } : {}),
      ...environment,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  return {
    process: child,
    log: () => output,
    exited,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}
