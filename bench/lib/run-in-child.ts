import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ENTRY = fileURLToPath(new URL('./child-entry.ts', import.meta.url));

/**
 * Calls `exportName(argument)` of `moduleUrl` in a fresh Node process and returns what it
 * resolved to (structured-cloned). Memory benchmarks need this: resident memory of a
 * process that already ran other benchmarks says little about the one being measured.
 */
export async function runInChild<T>(moduleUrl: URL, exportName: string, argument: unknown): Promise<T> {
  const child = fork(ENTRY, [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    child.once('message', (message: { ok: boolean; result?: T; message?: string }) => {
      settled = true;
      if (message.ok) resolve(message.result as T);
      else reject(new Error(`in a child process: ${message.message ?? 'failed'}`));
    });
    child.once('exit', (code) => {
      if (!settled) reject(new Error(`the child process exited with code ${String(code)} before answering`));
    });
    child.send({ modulePath: fileURLToPath(moduleUrl), exportName, argument });
  });
}
