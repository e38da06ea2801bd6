import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';

export interface ChildService {
  pid: number;
  /** Ends the process (SIGTERM, SIGKILL after `killAfterMs`) and removes its directory. */
  stop: () => Promise<void>;
}

/**
 * Starts a throw-away server as a child process whose files live in `root`, and resolves
 * once `ready()` holds (polled every `pollMs`, for up to 60 s). On failure — the child
 * exited, or never became ready — it is stopped and the error names it with the end of
 * its stderr. A run that ends without its teardown (process.exit, a crash) kills it.
 */
export async function startChildService(options: {
  name: string;
  command: string;
  args: readonly string[];
  root: string;
  ready: () => Promise<boolean>;
  pollMs: number;
  killAfterMs: number;
}): Promise<ChildService> {
  const { name, root } = options;
  const child = spawn(options.command, options.args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  void exited.then(() => process.off('exit', killOnExit));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), options.killAfterMs);
      await exited;
      clearTimeout(timer);
    }
    rmSync(root, { recursive: true, force: true });
  };
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`${name} exited with ${child.exitCode} before it answered: ${stderr}`);
    }
    if (await options.ready().catch(() => false)) return { pid: child.pid ?? 0, stop };
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`${name} did not answer within 60 s: ${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, options.pollMs));
  }
}
