import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../helpers/run-cli.js';
import { startFaultProxy } from '../helpers/fault-proxy.js';
import { startListeningTestApp, type ListeningTestApp } from '../helpers/listening-test-app.js';

const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';
const ASSISTANT = 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Claude-User/1.0; +Claude-User@anthropic.com)';

const directory = mkdtempSync(join(tmpdir(), 'docwright-import-cli-'));
let server: ListeningTestApp;

interface ImportJson {
  files: number;
  lines: number;
  hits: number;
  accepted: number;
  rejected: number;
  malformed: number;
  skippedNotPage: number;
  interrupted: boolean;
  rejectedExamples: unknown[];
}

function combinedLine(ip: string, path: string, userAgent: string, status = 200, minute = 0): string {
  return `${ip} - - [20/May/2026:10:${String(minute).padStart(2, '0')}:00 +0000] "GET ${path} HTTP/1.1" ${status} 1234 "-" "${userAgent}"`;
}

/** Page views of 3 people and 2 assistants on 2 pages, plus an asset, a redirect and a malformed line. */
const LOG_LINES = [
  combinedLine('198.51.100.1', '/docs/start', BROWSER),
  combinedLine('198.51.100.2', '/docs/start', BROWSER, 200, 1),
  combinedLine('198.51.100.3', '/docs/start?utm_source=x', BROWSER, 200, 2),
  combinedLine('198.51.100.1', '/docs/api', BROWSER, 200, 3),
  combinedLine('203.0.113.7', '/docs/api', ASSISTANT, 200, 4),
  combinedLine('203.0.113.8', '/docs/api.md', ASSISTANT, 200, 5),
  combinedLine('198.51.100.1', '/assets/app.js', BROWSER, 200, 6),
  combinedLine('198.51.100.2', '/old', BROWSER, 301, 7),
  'this is not a log line',
];

function importCli(args: string[], url = server.url) {
  return runCli(['analytics', 'import', '--project', server.projectId, ...args], { DOCWRIGHT_URL: url, DOCWRIGHT_API_KEY: server.apiKey });
}

async function visitors(): Promise<{ totals: object; visitors: Array<{ path: string; human: number; ai: number; total: number }> }> {
  const response = await fetch(`${server.url}/v1/analytics/${server.projectId}/visitors?limit=250`, { headers: { authorization: `Bearer ${server.apiKey}` } });
  expect(response.status).toBe(200);
  return (await response.json()) as never;
}

beforeAll(async () => {
  server = await startListeningTestApp('sqlite');
});

afterAll(async () => {
  await server?.close();
  rmSync(directory, { recursive: true, force: true });
});

describe('docwright analytics import', () => {
  test('imports the page views of a combined log; importing it again counts nothing twice', async () => {
    const file = join(directory, 'access.log');
    writeFileSync(file, `${LOG_LINES.join('\n')}\n`);
    const first = await importCli([file, '--json']);
    expect(first.code).toBe(0);
    const summary = JSON.parse(first.stdout) as ImportJson;
    expect(summary).toMatchObject({ files: 1, lines: 9, hits: 6, accepted: 6, rejected: 0, malformed: 1, skippedNotPage: 2, interrupted: false });
    // The query string is dropped; a Markdown fetch stays a page of its own.
    const expected = {
      totals: { human: 3, ai: 2, total: 5 },
      visitors: [
        { path: '/docs/start', human: 3, ai: 0, total: 3 },
        { path: '/docs/api', human: 1, ai: 1, total: 2 },
        { path: '/docs/api.md', human: 0, ai: 1, total: 1 },
      ],
    };
    expect(await visitors()).toMatchObject(expected);

    const again = await importCli([file]);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/Imported 1 file .* in /);
    expect(again.stdout).toMatch(/page hits sent\s+6/);
    expect(again.stdout).toContain('this is not a log line');
    expect(await visitors()).toMatchObject(expected);
  });

  test('reads JSON lines with --format jsonl and --field mappings', async () => {
    const file = join(directory, 'edge.jsonl');
    const lines = [
      { when: '2026-05-21T10:00:00Z', uri: '/docs/json-only', agent: BROWSER, addr: '192.0.2.10', code: 200 },
      { when: '2026-05-21T10:01:00Z', uri: '/docs/json-only', agent: BROWSER, addr: '192.0.2.11', code: 200 },
    ];
    writeFileSync(file, lines.map((line) => JSON.stringify(line)).join('\n'));
    const result = await importCli([
      '--format',
      'jsonl',
      '--field',
      'timestamp=when',
      '--field',
      'path=uri',
      '--field',
      'userAgent=agent',
      '--field',
      'ip=addr',
      '--field',
      'status=code',
      file,
      '--json',
    ]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ hits: 2, accepted: 2, malformed: 0 });
    expect((await visitors()).visitors).toContainEqual({ path: '/docs/json-only', human: 2, ai: 0, total: 2 });
  });

  test('sends --batch-size hits per request and retries a batch the server failed with 503', async () => {
    const file = join(directory, 'retry.log');
    writeFileSync(file, `${[0, 1, 2, 3, 4].map((index) => combinedLine(`198.51.100.${50 + index}`, '/docs/retried', BROWSER, 200, index)).join('\n')}\n`);
    const proxy = await startFaultProxy(server.url, (_request, index) => (index === 0 ? { status: 503 } : { forward: true }));
    try {
      const result = await importCli([file, '--batch-size', '2', '--json'], proxy.url);
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toMatchObject({ hits: 5, accepted: 5, rejected: 0 });
      const batches = proxy.requests.map((request) => (JSON.parse(request.body.toString()) as { events: Array<{ path: string; id: string }> }).events);
      // Five hits in batches of at most two, one of them sent twice.
      expect(batches).toHaveLength(4);
      expect(batches.every((events) => events.length <= 2)).toBe(true);
      expect(new Set(batches.flat().map((event) => event.id)).size).toBe(5);
      // The failed batch was sent again unchanged, ids included (another batch may go out in between).
      expect(batches.slice(1).filter((events) => JSON.stringify(events) === JSON.stringify(batches[0]))).toHaveLength(1);
      expect(result.stderr).toMatch(/retrying a batch in \d+\.\d s \(attempt 2\): injected 503/);
    } finally {
      await proxy.close();
    }
    expect((await visitors()).visitors).toContainEqual({ path: '/docs/retried', human: 5, ai: 0, total: 5 });
  });

  test('stops at once on an error that retrying cannot fix', async () => {
    const file = join(directory, 'refused.log');
    writeFileSync(file, `${combinedLine('198.51.100.99', '/docs/x', BROWSER)}\n`);
    const proxy = await startFaultProxy(server.url, () => ({
      status: 403,
      body: JSON.stringify({ status: 403, code: 'forbidden', detail: 'This key may not send events.' }),
    }));
    try {
      const result = await importCli([file], proxy.url);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain('docwright: This key may not send events.');
      expect(result.stderr).toContain('stopped after 1 lines: 0 hits accepted, 0 rejected; run the import again');
      expect(proxy.requests).toHaveLength(1);
    } finally {
      await proxy.close();
    }
  });

  test('a batch over the body limit is split and sent again; one refused as a whole is counted, and the rest still sent', async () => {
    const file = join(directory, 'split.log');
    writeFileSync(
      file,
      `${[0, 1, 2, 3, 4].map((index) => combinedLine(`198.51.100.${60 + index}`, `/docs/split-${index}`, BROWSER, 200, index)).join('\n')}\n`,
    );
    const tooLarge = JSON.stringify({ status: 413, code: 'payload_too_large', detail: 'The body is too large.' });
    const count = (body: Buffer): number => (JSON.parse(body.toString()) as { events: unknown[] }).events.length;
    // Bodies of more than two events are "too large"; the one holding /docs/split-4 is too large even alone.
    const proxy = await startFaultProxy(server.url, (request) =>
      count(request.body) > 2 || request.body.toString().includes('split-4') ? { status: 413, body: tooLarge } : { forward: true },
    );
    try {
      const result = await importCli([file, '--batch-size', '5', '--json'], proxy.url);
      expect(result.code).toBe(1);
      expect(JSON.parse(result.stdout)).toMatchObject({
        hits: 5,
        accepted: 4,
        rejected: 1,
        rejectedByCode: { payload_too_large: 1 },
        rejectedExamples: [{ path: '/docs/split-4', code: 'payload_too_large' }],
      });
    } finally {
      await proxy.close();
    }
  });

  test('reports a missing file and an unknown option value clearly', async () => {
    const [missing, badFormat] = await Promise.all([importCli([join(directory, 'nope.log')]), importCli(['--format', 'csv', join(directory, 'access.log')])]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('Cannot read log file');
    expect(badFormat.code).not.toBe(0);
    expect(badFormat.stderr).toContain('--format must be auto, combined, common or jsonl');
  });
});
