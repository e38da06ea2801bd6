import { processEnvironment, startDocwright, type DocwrightProcess } from './docwright-process.js';
import type { TestApp } from './test-app.js';

/**
 * A real `docwright serve --no-worker` child on the test app's store (its SQLite file, or
 * its PostgreSQL database), listening on a free loopback port (`url`). `environment` adds
 * to what every child gets.
 */
export function startApiProcess(t: TestApp, environment: Record<string, string> = {}): Promise<DocwrightProcess> {
  return startDocwright({
    args: ['serve', '--no-worker'],
    env: processEnvironment(t.testDatabase, { HOST: '127.0.0.1', DOCWRIGHT_PUBLIC_URL: 'http://docs.test', ...environment }),
    startTimeoutMs: 60_000,
  });
}
