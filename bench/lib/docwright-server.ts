import { fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

export interface BenchServer {
  url: string;
  projectId: string;
  apiKey: string;
  pid: number;
  /** CPU seconds (user + system) the server process has used so far. */
  cpuSeconds(): Promise<number>;
  stop(): Promise<void>;
}

export interface BenchServerOptions {
  dataDir: string;
  /** postgres:// URL; SQLite in dataDir when absent. */
  databaseUrl?: string;
  /** More variables for the server, e.g. a body limit. */
  environment?: Record<string, string>;
}

const ENTRY = fileURLToPath(new URL('./server-process.ts', import.meta.url));
const BENCH_SECRET = 'bench-secret-bench-secret-bench-secret-0123456789';

/**
 * Starts a real Docwright server (the production start-up path: migrations, features,
 * HTTP listener) in a child process on a free loopback port, with one project and an
 * admin key for it.
 */
export async function startBenchServer(options: BenchServerOptions): Promise<BenchServer> {
  const environment: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    PORT: '0',
    HOST: '127.0.0.1',
    DOCWRIGHT_DATA_DIR: options.dataDir,
    DOCWRIGHT_SECRET: BENCH_SECRET,
    // Request logs cost the same on every backend and would only blur the figures.
    DOCWRIGHT_LOG_LEVEL: 'warn',
    // The dataset's dates are fixed; it must not age out while it is benchmarked.
    DOCWRIGHT_ANALYTICS_RETENTION_DAYS: '36500',
    ...options.environment,
  };
  if (options.databaseUrl !== undefined) environment.DOCWRIGHT_DATABASE_URL = options.databaseUrl;
  // DOCWRIGHT_BENCH_CPU_PROF=DIR: a V8 CPU profile of the server (and its worker threads) when it stops.
  const profileDirectory = process.env.DOCWRIGHT_BENCH_CPU_PROF;
  const profile = profileDirectory === undefined || profileDirectory === '' ? [] : ['--cpu-prof', '--cpu-prof-dir', profileDirectory];
  const child = fork(ENTRY, [], { env: environment, execArgv: ['--import', 'tsx', ...profile], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const exited = once(child, 'exit');
  const ready = new Promise<{ url: string; projectId: string; apiKey: string }>((resolve, reject) => {
    child.on('message', (message: { type?: string; url: string; projectId: string; apiKey: string }) => {
      if (message.type === 'ready') resolve(message);
    });
    void exited.then(([code]) => reject(new Error(`the benchmark server exited with code ${String(code)} before it was ready`)));
  });
  const started = await ready;
  return {
    ...started,
    pid: child.pid ?? 0,
    cpuSeconds() {
      return new Promise((resolve) => {
        const answer = (message: { type?: string; user?: number; system?: number }): void => {
          if (message.type !== 'cpu-usage') return;
          child.off('message', answer);
          resolve(((message.user ?? 0) + (message.system ?? 0)) / 1e6);
        };
        child.on('message', answer);
        child.send('cpu-usage');
      });
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.send('stop');
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
