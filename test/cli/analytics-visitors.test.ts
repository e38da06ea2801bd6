import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { startFaultProxy } from '../helpers/fault-proxy.js';
import { startListeningTestApp, type ListeningTestApp } from '../helpers/listening-test-app.js';

const BROWSER = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15';
const ASSISTANT = 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot';
/** A path that needs quoting in CSV. */
const AWKWARD_PATH = '/docs/a,"quoted"';

interface VisitorsBody {
  totals: { human: number; ai: number; total: number };
  visitors: Array<{ path: string; human: number; ai: number; total: number }>;
  hasMore: boolean;
}

let server: ListeningTestApp;

async function api(path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers({ authorization: `Bearer ${server.apiKey}`, 'content-type': 'application/json' });
  for (const [name, value] of new Headers(init.headers)) headers.set(name, value);
  return fetch(`${server.url}${path}`, { ...init, headers });
}

/** The API's own answer in one request, the reference for what the CLI prints. */
async function allVisitors(query = ''): Promise<VisitorsBody> {
  const response = await api(`/v1/analytics/${server.projectId}/visitors?limit=250${query}`);
  expect(response.status).toBe(200);
  const body = (await response.json()) as VisitorsBody;
  expect(body.hasMore).toBe(false);
  return body;
}

function cli(args: string[], url = server.url, apiKey = server.apiKey) {
  return runCli(['analytics', 'visitors', '--project', server.projectId, ...args], { DOCWRIGHT_URL: url, DOCWRIGHT_API_KEY: apiKey });
}

beforeAll(async () => {
  server = await startListeningTestApp('sqlite');
  // Page k has 13 - k human readers and k % 3 assistants, so every page has its own total.
  const events: object[] = [];
  for (let page = 0; page < 12; page++) {
    const path = page === 11 ? AWKWARD_PATH : `/docs/page-${String(page).padStart(2, '0')}`;
    for (let reader = 0; reader < 13 - page; reader++) {
      events.push({ timestamp: `2026-05-1${reader % 10}T08:00:00Z`, path, userAgent: BROWSER, visitorId: `human-${reader}` });
    }
    for (let assistant = 0; assistant < page % 3; assistant++) {
      events.push({ timestamp: '2026-05-12T09:00:00Z', path, userAgent: ASSISTANT, ip: `203.0.113.${assistant + 1}` });
    }
  }
  // Only on the 25th: outside the range the --from/--to test asks for.
  events.push({ timestamp: '2026-05-25T10:00:00Z', path: '/docs/late', userAgent: BROWSER, visitorId: 'late-reader' });
  const response = await api(`/v1/analytics/${server.projectId}/events`, { method: 'POST', body: JSON.stringify({ events }) });
  expect(response.status).toBe(202);
  expect(((await response.json()) as { rejected: unknown[] }).rejected).toEqual([]);
});

afterAll(async () => {
  await server?.close();
});

describe('docwright analytics visitors', () => {
  test('prints the totals and every page as a table, walking page after page', async () => {
    const expected = await allVisitors();
    expect(expected.visitors).toHaveLength(13);
    const result = await cli(['--page-size', '4']);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(result.stdout).toContain(`  human  ${expected.totals.human}\n  ai     ${expected.totals.ai}\n  total  ${expected.totals.total}`);
    const rows = result.stdout.split('\n').filter((line) => /^\s*\d+\s+\d+\s+\d+\s+\//.test(line));
    expect(rows.map((line) => line.trim().split(/\s+/))).toEqual(
      expected.visitors.map((entry) => [String(entry.total), String(entry.human), String(entry.ai), entry.path]),
    );
    expect(result.stdout).toContain('13 pages.');
  });

  test('--json prints the API shape with all pages, requesting offset += page size while hasMore', async () => {
    const expected = await allVisitors();
    const proxy = await startFaultProxy(server.url, () => ({ forward: true }));
    try {
      const result = await cli(['--page-size', '5', '--json'], proxy.url);
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual({ totals: expected.totals, visitors: expected.visitors });
      const offsets = proxy.requests.map((request) => new URL(request.url, 'http://x').searchParams);
      expect(offsets.map((params) => [params.get('limit'), params.get('offset')])).toEqual([
        ['5', '0'],
        ['5', '5'],
        ['5', '10'],
      ]);
    } finally {
      await proxy.close();
    }
  });

  test('--format csv writes a site row and one quoted-as-needed row per page', async () => {
    const expected = await allVisitors();
    const result = await cli(['--format', 'csv', '--page-size', '250']);
    expect(result.code).toBe(0);
    const lines = result.stdout.split('\r\n');
    expect(lines[0]).toBe('scope,path,human,ai,total');
    expect(lines[1]).toBe(`site,,${expected.totals.human},${expected.totals.ai},${expected.totals.total}`);
    expect(lines).toContain(`page,"/docs/a,""quoted""",${13 - 11},${11 % 3},${13 - 11 + (11 % 3)}`);
    expect(lines.slice(2, -1)).toHaveLength(expected.visitors.length);
    expect(lines.at(-1)).toBe('');
  });

  test('--from and --to select the same range as the API (UTC, end exclusive)', async () => {
    const expected = await allVisitors('&dateFrom=2026-05-20&dateTo=2026-05-26');
    expect(expected.visitors.map((entry) => entry.path)).toEqual(['/docs/late']);
    const [result, none] = await Promise.all([
      cli(['--from', '2026-05-20', '--to', '2026-05-26', '--json']),
      cli(['--from', '2026-05-20', '--to', '2026-05-25', '--json']),
    ]);
    expect(JSON.parse(result.stdout)).toEqual({ totals: expected.totals, visitors: expected.visitors });
    expect(JSON.parse(none.stdout)).toEqual({ totals: { human: 0, ai: 0, total: 0 }, visitors: [] });
  });

  test('rejects bad dates before any request, and reports the server refusing the key', async () => {
    const [badDate, reversed, wrongKey] = await Promise.all([
      cli(['--from', '2026-13-01']),
      cli(['--from', '2026-05-20', '--to', '2026-05-01']),
      cli([], server.url, `dw_admin_${'0'.repeat(36)}`),
    ]);
    expect(badDate.code).not.toBe(0);
    expect(badDate.stderr).toContain('--from must be a date');
    expect(reversed.code).not.toBe(0);
    expect(reversed.stderr).toContain('--from must not be after --to');
    expect(wrongKey.code).toBe(1);
    expect(wrongKey.stderr).toMatch(/^docwright: .*key/im);
    expect(wrongKey.stdout).toBe('');
  });

  test('retries a 503, and shows progress on stderr when the walk is slow', async () => {
    const expected = await allVisitors();
    const proxy = await startFaultProxy(server.url, (_request, index) => (index === 0 ? { status: 503 } : { forward: true, delayMs: 250 }));
    try {
      const result = await cli(['--page-size', '2', '--json'], proxy.url);
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toEqual({ totals: expected.totals, visitors: expected.visitors });
      // The failed first request was asked again: 7 pages of 2 rows, plus the retry.
      expect(proxy.requests).toHaveLength(8);
      expect(proxy.requests[0]?.url).toBe(proxy.requests[1]?.url);
      expect(result.stderr).toMatch(/^visitors: \d+ pages, [\d,]+ rows, \d+\.\d s$/m);
    } finally {
      await proxy.close();
    }
  });
});

describe('docwright analytics views', () => {
  test('--json prints the API shape of /views with every page; the table shows the same counts', async () => {
    const response = await api(`/v1/analytics/${server.projectId}/views?limit=250`);
    const expected = (await response.json()) as { totals: VisitorsBody['totals']; views: VisitorsBody['visitors'] };
    // 13 + 12 + … + 2 readers, one view each, plus the late reader; 0 + 1 + 2 assistant views per three pages.
    expect(expected.totals).toEqual({ human: 91, ai: 12, total: 103 });
    const json = await runCli(['analytics', 'views', '--project', server.projectId, '--page-size', '5', '--json'], {
      DOCWRIGHT_URL: server.url,
      DOCWRIGHT_API_KEY: server.apiKey,
    });
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({ totals: expected.totals, views: expected.views });
    const table = await runCli(['analytics', 'views', '--project', server.projectId], { DOCWRIGHT_URL: server.url, DOCWRIGHT_API_KEY: server.apiKey });
    expect(table.stdout).toContain(`Page views of project ${server.projectId}`);
    const rows = table.stdout.split('\n').filter((line) => /^\s*\d+\s+\d+\s+\d+\s+\//.test(line));
    expect(rows.map((line) => line.trim().split(/\s+/))).toEqual(
      expected.views.map((entry) => [String(entry.total), String(entry.human), String(entry.ai), entry.path]),
    );
  });
});
