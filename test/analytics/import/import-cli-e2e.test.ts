// The import fixes of issue 13 end to end: the real `docwright analytics import` child
// process against the real events endpoint, where the server's answer matters.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../helpers/run-cli.js';
import { startListeningTestApp, type ListeningTestApp } from '../../helpers/listening-test-app.js';

const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const directory = mkdtempSync(join(tmpdir(), 'docwright-import-e2e-'));
let server: ListeningTestApp;

beforeAll(async () => {
  server = await startListeningTestApp('sqlite');
});

afterAll(async () => {
  await server?.close();
  rmSync(directory, { recursive: true, force: true });
});

/** The test app's manual clock: the server checks retention and skew against it. */
const SERVER_NOW = Date.UTC(2026, 5, 1, 12);

/** A combined line `daysAgo` days before the server's now; a common-format one for `agent: ''`. */
function line(ip: string, path: string, { daysAgo = 1, second = 0, agent = BROWSER } = {}): string {
  const time = new Date(SERVER_NOW - daysAgo * 86_400_000);
  time.setUTCHours(10, 0, second, 0);
  const stamp = `${String(time.getUTCDate()).padStart(2, '0')}/${MONTHS[time.getUTCMonth()]}/${time.getUTCFullYear()}:${time.toISOString().slice(11, 19)} +0000`;
  const request = `${ip} - - [${stamp}] "GET ${path} HTTP/1.1" 200 512`;
  return agent === '' ? request : `${request} "-" "${agent}"`;
}

function writeLog(name: string, lines: readonly string[]): string {
  const file = join(directory, name);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

function importCli(args: string[]) {
  return runCli(['analytics', 'import', '--project', server.projectId, ...args], { DOCWRIGHT_URL: server.url, DOCWRIGHT_API_KEY: server.apiKey });
}

async function api<T>(path: string, init: RequestInit = {}): Promise<T> {
  const response = await fetch(`${server.url}/v1/analytics/${server.projectId}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${server.apiKey}`, 'content-type': 'application/json' },
  });
  expect(response.status).toBeLessThan(300);
  return (await response.json()) as T;
}

const visitorRows = async () => (await api<{ visitors: Array<{ path: string; human: number; total: number }> }>('/visitors?limit=250')).visitors;
const classHits = async (name: string) =>
  (await api<{ classes: Array<{ class: string; hits: number }> }>('/traffic')).classes.find((entry) => entry.class === name)?.hits;

describe('docwright analytics import against the events endpoint', () => {
  test('a path with %20 or encoded UTF-8 is accepted, under the key the beacon and the API use too', async () => {
    const file = writeLog('encoded.log', [line('198.51.100.1', '/docs/getting%20started'), line('198.51.100.2', '/docs/caf%C3%A9?ref=x')]);
    const result = await importCli([file, '--json']);
    expect(result.stderr).not.toContain('invalid_path');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ hits: 2, accepted: 2, rejected: 0 });
    // The beacon sends location.pathname, which a browser percent-encodes; an API caller may send raw UTF-8.
    const sent = await api<{ accepted: number }>('/events', {
      method: 'POST',
      body: JSON.stringify({
        events: [
          { path: '/docs/getting%20started', ip: '198.51.100.3', userAgent: BROWSER },
          { path: '/docs/café', ip: '198.51.100.4', userAgent: BROWSER },
        ],
      }),
    });
    expect(sent.accepted).toBe(2);
    const rows = await visitorRows();
    expect(rows).toContainEqual(expect.objectContaining({ path: '/docs/getting%20started', human: 2 }));
    expect(rows).toContainEqual(expect.objectContaining({ path: '/docs/café', human: 2 }));
    expect(rows.filter((row) => row.path.includes('getting') || row.path.includes('caf'))).toHaveLength(2);
  });

  test('re-importing a log with a line removed and garbage inserted stores no duplicate', async () => {
    const lines = Array.from({ length: 40 }, (_, index) => line(`192.0.2.${index}`, `/docs/re-${index % 7}`, { second: index }));
    const before = (await classHits('human')) ?? 0;
    expect((await importCli([writeLog('first.log', lines)])).code).toBe(0);
    const damaged = [...lines.slice(0, 5), 'garbage', ...lines.slice(6, 30), '\u0007\u0008', ...lines.slice(30)];
    const again = await importCli([writeLog('second.log', damaged), '--json']);
    expect(JSON.parse(again.stdout)).toMatchObject({ hits: 39, malformed: 2 });
    expect(await classHits('human')).toBe(before + 40);
  });

  test('a file of nothing but malformed lines fails with a clear message', async () => {
    const result = await importCli(['--format', 'combined', writeLog('junk.log', ['not a log line', 'nor this one'])]);
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('None of the 2 lines read is a log line');
  });

  test('a log older than the retention window is refused with a hint naming DOCWRIGHT_ANALYTICS_RETENTION_DAYS', async () => {
    const result = await importCli([writeLog('ancient.log', [line('198.51.100.9', '/docs/old', { daysAgo: 500 })])]);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/timestamp_too_old\s+1/);
    expect(result.stdout).toMatch(/older than the server's retention period.*DOCWRIGHT_ANALYTICS_RETENTION_DAYS/);
  });

  test('a common-format log warns that its hits count as bots, and the JSON output breaks down what was not a page', async () => {
    const file = writeLog('common.log', [
      line('198.51.100.20', '/docs/clf-only', { agent: '' }),
      line('198.51.100.21', '/assets/app.js', { agent: '' }),
      line('198.51.100.22', '/docs/clf-only', { agent: '' }).replace('" 200 ', '" 404 '),
      line('198.51.100.23', '/docs/clf-only', { agent: '' }).replace('HTTP/1.1"', 'HTTP/1.1'),
    ]);
    const json = await importCli([file, '--json']);
    expect(json.code).toBe(0);
    const summary = JSON.parse(json.stdout) as { notPages: object; salvaged: number; hitsWithoutUserAgent: number; warnings: Array<{ code: string }> };
    expect(summary).toMatchObject({ hitsWithoutUserAgent: 2, salvaged: 1, notPages: { skippedPath: 1, clientError: 1 } });
    expect(summary.warnings.map((warning) => warning.code)).toEqual(['no_user_agent']);
    expect(json.stderr).toContain('classes a hit without a user agent as bot');
    const human = await importCli([file]);
    expect(human.stdout).toMatch(/client errors \(4xx\)\s+1/);
    expect(human.stdout).toMatch(/salvaged lines\s+1/);
    expect(human.stdout).toContain('warning: All of the 2 page hits have no user agent');
    // No human or AI visitor for the page; the two hits (imported twice, stored once) are bots.
    expect((await visitorRows()).find((row) => row.path === '/docs/clf-only')).toBeUndefined();
    expect(await classHits('bot')).toBe(2);
  });
});
