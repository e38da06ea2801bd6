import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { CLI } from '../helpers/run-cli.js';
import { createTestApp } from '../helpers/test-app.js';

test('docwright serve answers, and exits 0 on SIGTERM', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'docwright-serve-'));
  const child = spawn(process.execPath, [CLI, 'serve'], {
    env: { PATH: process.env.PATH ?? '', PORT: '0', DOCWRIGHT_DATA_DIR: dataDir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${output}`)), 20_000);
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /"url":"(http:\/\/[^"]+)"/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
  });
  const health = await fetch(`${url}/healthz`);
  expect(await health.json()).toEqual({ status: 'ok' });
  const exit = new Promise<number | null>((resolve) => child.on('close', resolve));
  child.kill('SIGTERM');
  expect(await exit).toBe(0);
  expect(output).toContain('"msg":"stopped"');
});

test('closing drains an in-flight request before the server stops', async () => {
  const t = await createTestApp('sqlite');
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  t.app.get('/test/slow', async () => {
    await gate;
    return { done: true };
  });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const address = t.app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const inFlight = fetch(`http://127.0.0.1:${port}/test/slow`).then((response) => response.json());
  await new Promise((resolve) => setTimeout(resolve, 100));
  const closing = t.app.close();
  setTimeout(release, 100);
  expect(await inFlight).toEqual({ done: true });
  await closing;
  await t.testDatabase.close();
});
