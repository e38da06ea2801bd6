// Issue 13, item 4: "per-UTC-day unique visitors are identical [to GoAccess's] on the same
// hits — keep that". The real `docwright analytics import` child sends a log to the real
// events endpoint; Debian's GoAccess (apt-get install goaccess, which .ci/run does) reads the
// same file; both count a visitor as one address and user agent on one UTC day.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createSeededRandom } from '../../../bench/lib/seeded-random.js';
import { runCli } from '../../helpers/run-cli.js';
import { startListeningTestApp, type ListeningTestApp } from '../../helpers/listening-test-app.js';

const GOACCESS = '/usr/bin/goaccess';
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/** The test app's manual clock (test/helpers/test-app.ts): the log ends the day before. */
const SERVER_NOW = Date.UTC(2026, 5, 1, 12);
const FIRST_DAY = SERVER_NOW - 4 * 86_400_000 - (SERVER_NOW % 86_400_000);
const BROWSERS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15',
  'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
];
/** Plain, percent-encoded (a space, UTF-8) and query-string paths: the importer keeps their encoding. */
const PATHS = ['/docs', '/docs/intro', '/docs/getting%20started', '/docs/caf%C3%A9', '/docs/api/auth?tab=curl', '/guides/a%20b%20c', '/changelog'];

const directory = mkdtempSync(join(tmpdir(), 'docwright-goaccess-'));
let server: ListeningTestApp;

beforeAll(async () => {
  if (!existsSync(GOACCESS)) throw new Error(`${GOACCESS} is missing: install Debian's goaccess package (apt-get install goaccess), as .ci/run does`);
  server = await startListeningTestApp('sqlite');
});

afterAll(async () => {
  await server?.close();
  rmSync(directory, { recursive: true, force: true });
});

function stamp(ms: number): string {
  const time = new Date(ms);
  const day = String(time.getUTCDate()).padStart(2, '0');
  return `${day}/${MONTHS[time.getUTCMonth()]}/${time.getUTCFullYear()}:${time.toISOString().slice(11, 19)} +0000`;
}

/**
 * Page views over three UTC days, in time order: addresses (IPv4 and IPv6) that come back
 * on later days or with a second browser, and lines on both sides of midnight. No line
 * lacks its closing quote: GoAccess reads such a line's user agent as another one (a
 * second visitor), where the importer's salvage keeps the client's (docs/import.md).
 */
function generateLog(lines: number, seed: number): string[] {
  const random = createSeededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const span = 3 * 86_400_000;
  const times = Array.from({ length: lines }, () => FIRST_DAY + Math.floor(random() * span));
  // Crowd some lines around each midnight, where a day boundary error would show.
  for (let index = 0; index < lines / 20; index += 1) times[index] = FIRST_DAY + 86_400_000 * (1 + (index % 2)) + Math.floor(random() * 4_000) - 2_000;
  times.sort((a, b) => a - b);
  return times.map((time) => {
    const visitor = Math.floor(random() * 400);
    const ip = visitor % 3 === 0 ? `2001:db8:${(visitor % 7).toString(16)}::${visitor.toString(16)}` : `198.51.${Math.floor(visitor / 200)}.${visitor % 200}`;
    // Most visitors keep one browser; every fifth switches now and then (a new visitor to both tools).
    const browser = visitor % 5 === 0 && random() < 0.3 ? BROWSERS[(visitor + 1) % BROWSERS.length]! : BROWSERS[visitor % BROWSERS.length]!;
    return `${ip} - - [${stamp(time)}] "GET ${pick(PATHS)} HTTP/1.1" 200 ${500 + Math.floor(random() * 5000)} "-" "${browser}"`;
  });
}

interface GoAccessReport {
  visitors: { data: Array<{ data: string; visitors: { count: number } }> };
}

describe('log import agrees with GoAccess', () => {
  test('per-UTC-day unique visitors of an imported log equal GoAccess’s on the same file', async () => {
    const file = join(directory, 'access.log');
    writeFileSync(file, `${generateLog(4_000, 13).join('\n')}\n`);

    const imported = await runCli(['analytics', 'import', '--project', server.projectId, file, '--json'], {
      DOCWRIGHT_URL: server.url,
      DOCWRIGHT_API_KEY: server.apiKey,
    });
    expect(imported.code, imported.stderr + imported.stdout).toBe(0);
    expect(JSON.parse(imported.stdout)).toMatchObject({ lines: 4_000, hits: 4_000, accepted: 4_000, rejected: 0, malformed: 0 });

    const output = join(directory, 'goaccess.json');
    await promisify(execFile)(GOACCESS, [file, '--log-format=COMBINED', '--no-global-config', '-o', output], { timeout: 60_000 });
    const report = JSON.parse(readFileSync(output, 'utf8')) as GoAccessReport;
    const goaccess = Object.fromEntries(
      report.visitors.data.map((day) => [`${day.data.slice(0, 4)}-${day.data.slice(4, 6)}-${day.data.slice(6, 8)}`, day.visitors.count]),
    );

    const from = new Date(FIRST_DAY).toISOString().slice(0, 10);
    const to = new Date(FIRST_DAY + 3 * 86_400_000).toISOString().slice(0, 10);
    const response = await fetch(`${server.url}/v1/analytics/${server.projectId}/visitors/daily?dateFrom=${from}&dateTo=${to}`, {
      headers: { authorization: `Bearer ${server.apiKey}` },
    });
    expect(response.status).toBe(200);
    const daily = (await response.json()) as { days: Array<{ date: string; human: number; ai: number; total: number }> };
    const docwright = Object.fromEntries(daily.days.filter((day) => day.total > 0).map((day) => [day.date, day.total]));

    expect(Object.keys(goaccess)).toHaveLength(3);
    // Every line is a browser reading a page, so every visitor is human.
    expect(daily.days.every((day) => day.ai === 0 && day.human === day.total)).toBe(true);
    expect(docwright).toEqual(goaccess);
  }, 120_000);
});
