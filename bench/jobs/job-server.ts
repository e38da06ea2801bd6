import { fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

export interface JobServer {
  url: string;
  /** Per repository name given at start: its project and an admin key for it. */
  projects: Record<string, { projectId: string; apiKey: string }>;
  pid: number;
  stop(): Promise<void>;
}

export interface JobServerOptions {
  dataDir: string;
  /** postgres:// URL; SQLite in dataDir when absent. */
  databaseUrl?: string;
  /** Base URL of the fake chat-completions server. */
  modelUrl: string;
  /** Name → local git repository path; one local-forge project each. */
  repositories: Record<string, string>;
  /** Writes a V8 CPU profile of the server process here when it stops (node --cpu-prof). */
  cpuProfileDirectory?: string;
  /** More Node options for the server, e.g. `--import` of an experiment's patch. */
  execArgv?: string[];
  /** More settings, over the benchmark's own. */
  environment?: Record<string, string>;
  /**
   * `serve` (default): API and an in-process worker, as `docwright serve`; `api`: no worker,
   * as `docwright serve --no-worker`; `worker`: a worker only, as `docwright worker` (no URL,
   * no projects: point it at an `api` server's data dir or database).
   */
  role?: 'serve' | 'api' | 'worker';
}

const ENTRY = fileURLToPath(new URL('./job-server-process.ts', import.meta.url));
const BENCH_SECRET = 'bench-secret-bench-secret-bench-secret-0123456789';

/**
 * Starts `docwright serve` as production runs it (API and in-process worker, one process;
 * or one of the two, see `role`) in a child process on a free loopback port, so the
 * benchmark's client and fake model never share the server's event loop.
 */
export async function startJobServer(options: JobServerOptions): Promise<JobServer> {
  const environment: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    PORT: '0',
    HOST: '127.0.0.1',
    DOCWRIGHT_DATA_DIR: options.dataDir,
    DOCWRIGHT_SECRET: BENCH_SECRET,
    DOCWRIGHT_MODEL: 'openai-compatible:fake',
    DOCWRIGHT_OPENAI_COMPATIBLE_BASE_URL: options.modelUrl,
    DOCWRIGHT_MODEL_RETRIES: '0',
    // The benchmark creates hundreds of jobs an hour; the limit is not what is measured.
    DOCWRIGHT_RATE_LIMIT: '1000000',
    // Request logs would cost the same on every backend and only blur the figures.
    DOCWRIGHT_LOG_LEVEL: 'warn',
    DOCWRIGHT_BENCH_REPOSITORIES: JSON.stringify(options.repositories),
    DOCWRIGHT_BENCH_ROLE: options.role ?? 'serve',
    ...options.environment,
  };
  if (options.databaseUrl !== undefined) environment.DOCWRIGHT_DATABASE_URL = options.databaseUrl;
  const profile = options.cpuProfileDirectory === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', options.cpuProfileDirectory];
  const child = fork(ENTRY, [], {
    env: environment,
    execArgv: ['--import', 'tsx', ...profile, ...(options.execArgv ?? [])],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = once(child, 'exit');
  const started = await new Promise<{ url: string; projects: JobServer['projects'] }>((resolve, reject) => {
    child.on('message', (message: { type?: string; url: string; projects: JobServer['projects'] }) => {
      if (message.type === 'ready') resolve(message);
    });
    void exited.then(([code]) => reject(new Error(`the jobs benchmark server exited with code ${String(code)} before it was ready`)));
  });
  return {
    ...started,
    pid: child.pid ?? 0,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.send('stop');
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
