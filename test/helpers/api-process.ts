import type { TestApp } from './test-app.js';
import { spawnChild, type WorkerChild } from './worker-child.js';

export interface ApiProcess {
  /** http://127.0.0.1:PORT */
  url: string;
  child: WorkerChild;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when it has exited. */
  stop(graceMs?: number): Promise<void>;
}

/**
 * A real `docwright serve --no-worker` child on the test app's database (its SQLite file,
 * or its PostgreSQL database), listening on a free loopback port. `environment` adds to
 * what every child gets.
 */
export async function startApiProcess(t: TestApp, environment: Record<string, string> = {}): Promise<ApiProcess> {
  const child = spawnChild(t.testDatabase, ['serve', '--no-worker'], { PORT: '0', HOST: '127.0.0.1', DOCWRIGHT_PUBLIC_URL: 'http://docs.test', DOCWRIGHT_LOG_LEVEL: 'info', ...environment });
  const deadline = Date.now() + 60_000;
  let url: string | undefined;
  // The start-up line names the bound address: {"url":"http://127.0.0.1:PORT", …}.
  while (url === undefined) {
    url = /"url":"(http:\/\/127\.0\.0\.1:\d+)"/.exec(child.log())?.[1];
    if (url !== undefined) break;
    if (child.process.exitCode !== null || child.process.signalCode !== null || Date.now() > deadline) {
      await child.kill();
      throw new Error(`docwright serve did not start:\n${child.log()}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url,
    child,
    async stop(graceMs = 10_000) {
      if (child.process.exitCode !== null || child.process.signalCode !== null) return;
      child.process.kill('SIGTERM');
      const timer = setTimeout(() => child.process.kill('SIGKILL'), graceMs);
      await child.exited;
      clearTimeout(timer);
    },
  };
}
