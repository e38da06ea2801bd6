import { fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

export interface BareFastifyServer {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

const ENTRY = fileURLToPath(new URL('./bare-fastify-process.ts', import.meta.url));

/** Starts the constant-JSON Fastify baseline in its own process, as the Docwright server runs in its own. */
export async function startBareFastifyServer(options: { cpuProfileDirectory?: string } = {}): Promise<BareFastifyServer> {
  const profile = options.cpuProfileDirectory === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', options.cpuProfileDirectory];
  const child = fork(ENTRY, [], { execArgv: ['--import', 'tsx', ...profile], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const exited = once(child, 'exit');
  const url = await new Promise<string>((resolve, reject) => {
    child.on('message', (message: { type?: string; url: string }) => {
      if (message.type === 'ready') resolve(message.url);
    });
    void exited.then(([code]) => reject(new Error(`the bare Fastify server exited with code ${String(code)} before it was ready`)));
  });
  return {
    url,
    pid: child.pid ?? 0,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.send('stop');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
