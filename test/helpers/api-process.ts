import { spawn, type ChildProcess } from 'node:child_process';
import { CLI } from './run-cli.js';
import { TEST_SECRET, type TestApp } from './test-app.js';

export interface ApiProcess {
  /** http://127.0.0.1:PORT */
  url: string;
  child: ChildProcess;
  /** What the process wrote to stderr and stdout so far (for failure messages). */
  output(): string;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when it has exited. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * A real `docwright serve --no-worker` child on the test app's database (its SQLite file,
 * or its PostgreSQL database), listening on a free loopback port. `environment` adds to
 * what the test app was configured with.
 */
export async function startApiProcess(t: TestApp, environment: Record<string, string> = {}): Promise<ApiProcess> {
  const { dialect, location, dataDir } = t.testDatabase;
  const child = spawn(process.execPath, [CLI, 'serve', '--no-worker'], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      PORT: '0',
      HOST: '127.0.0.1',
      DOCWRIGHT_DATA_DIR: dataDir,
      DOCWRIGHT_SECRET: TEST_SECRET,
      DOCWRIGHT_PUBLIC_URL: 'http://docs.test',
      DOCWRIGHT_LOG_LEVEL: 'info',
      ...(dialect === 'postgres' ? { DOCWRIGHT_DATABASE_URL: location } : {}),
      ...environment,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`docwright serve did not start within 60 s:\n${output}`)), 60_000);
    const fail = () => {
      clearTimeout(timer);
      reject(new Error(`docwright serve exited before listening:\n${output}`));
    };
    child.once('exit', fail);
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(output);
      if (match) {
        clearTimeout(timer);
        child.off('exit', fail);
        resolve(match[1]!);
      }
    });
  });
  return {
    url,
    child,
    output: () => output,
    async stop(graceMs = 10_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}
