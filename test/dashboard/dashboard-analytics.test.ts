import { readFileSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { USER_AGENTS } from '../helpers/analytics-kit.js';
import { launchChromium, openPage, startDashboardServer, type DashboardServer, type PageProblems } from './dashboard-harness.js';
import { setUpFirstAdmin, signIn } from './dashboard-flows.js';
import { expectAccessible, expectNoProblems } from './dashboard-expectations.js';

const DAY = 86_400_000;

/** Noon UTC, `days` days before today (UTC). */
function daysAgo(days: number): string {
  return new Date(Math.floor(Date.now() / DAY) * DAY - days * DAY + 12 * 3_600_000).toISOString();
}

function isoDay(days: number): string {
  return daysAgo(days).slice(0, 10);
}

/** Known hits: the page must show exactly what they add up to. */
function events(): unknown[] {
  const hit = (visitorId: string, path: string, days: number, userAgent: string = USER_AGENTS.human) => ({
    visitorId,
    path,
    timestamp: daysAgo(days),
    userAgent,
  });
  return [
    hit('h1', '/guide', 1),
    hit('h2', '/guide', 1),
    hit('h3', '/guide', 1),
    hit('h1', '/start', 1),
    hit('h4', '/start', 2),
    hit('a1', '/guide', 2, USER_AGENTS.ai),
    hit('a2', '/api', 2, USER_AGENTS.aiClaude),
    hit('t1', '/guide', 1, USER_AGENTS.aiTraining),
    hit('b1', '/start', 2, USER_AGENTS.bot),
    // The previous 7 days: one person, for the change on the cards.
    hit('h5', '/old', 10),
  ];
}

async function rows(page: Page, testId: string): Promise<string[][]> {
  return page
    .getByTestId(testId)
    .locator('tbody tr')
    .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => (td.textContent ?? '').trim())));
}

describe('analytics page in Chromium', () => {
  let server: DashboardServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: PageProblems;
  let projectId: string;
  let emptyProjectId: string;
  let manyPagesId: string;

  beforeAll(async () => {
    server = await startDashboardServer();
    const { services } = server.server;
    projectId = (await services.projects.create({ name: 'Docs', repository: server.dataDir, ref: 'main', forge: 'local', settings: {} })).id;
    emptyProjectId = (await services.projects.create({ name: 'Quiet docs', repository: server.dataDir, ref: 'main', forge: 'local', settings: {} })).id;
    manyPagesId = (await services.projects.create({ name: 'Many pages', repository: server.dataDir, ref: 'main', forge: 'local', settings: {} })).id;
    const send = async (project: string, batch: unknown[]) => {
      const key = (await services.keys.create({ projectId: project, scope: 'ingest' })).key;
      const response = await fetch(`${server.url}/v1/analytics/${project}/events`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ events: batch }),
      });
      const accepted = (await response.json()) as { accepted: number; rejected: unknown[] };
      if (accepted.accepted !== batch.length) throw new Error(`events not accepted: ${JSON.stringify(accepted)}`);
    };
    await send(projectId, events());
    // 30 pages: /p01 has 30 visitors, /p02 29, … /p30 1.
    await send(
      manyPagesId,
      Array.from({ length: 30 }, (_, page) =>
        Array.from({ length: 30 - page }, (_, visitor) => ({
          visitorId: `v${visitor}`,
          path: `/p${String(page + 1).padStart(2, '0')}`,
          timestamp: daysAgo(1),
          userAgent: USER_AGENTS.human,
        })),
      ).flat(),
    );
    browser = await launchChromium();
    ({ context, page, problems } = await openPage(browser, server.url));
    await setUpFirstAdmin(page, server);
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.close();
  });

  it('shows exactly the totals, change, daily points, top pages and breakdowns of the ingested hits', async () => {
    await page.goto(`/projects/${projectId}/analytics?range=7d`);
    await page.getByTestId('stat-total').waitFor();
    expect(await page.getByTestId('stat-human').textContent()).toBe('4');
    expect(await page.getByTestId('stat-ai').textContent()).toBe('2');
    expect(await page.getByTestId('stat-total').textContent()).toBe('6');
    const human = page.locator('[data-stat="human"]');
    expect(await human.textContent()).toContain('+300%');
    expect(await human.textContent()).toContain('vs previous 7 days (1)');
    expect(await page.locator('[data-stat="ai"]').textContent()).toContain('new');

    expect(await rows(page, 'pages-table')).toEqual([
      ['/guide', '3', '1', '4'],
      ['/start', '2', '0', '2'],
      ['/api', '0', '1', '1'],
    ]);

    const daily = await rows(page, 'daily-table');
    expect(daily).toHaveLength(7);
    expect(daily[0]![0]).toBe(isoDay(6));
    expect(daily[6]![0]).toBe(isoDay(0));
    expect(daily.find((row) => row[0] === isoDay(1))).toEqual([isoDay(1), '3', '0', '3']);
    expect(daily.find((row) => row[0] === isoDay(2))).toEqual([isoDay(2), '1', '2', '3']);
    expect(daily.filter((row) => row[0] !== isoDay(1) && row[0] !== isoDay(2)).every((row) => row.slice(1).join() === '0,0,0')).toBe(true);
    // The chart drew (uPlot's canvas) from the same numbers.
    expect(await page.locator('.chart canvas').count()).toBe(1);

    const classes = Object.fromEntries((await rows(page, 'classes-table')).map((row) => [row[0]!.split(' ')[0]!, row.slice(1)]));
    expect(classes).toEqual({ human: ['5', '4'], ai: ['2', '2'], 'ai-search': ['0', '0'], 'ai-training': ['1', '1'], bot: ['1', '1'] });
    const agents = await rows(page, 'agents-table');
    expect(agents).toEqual(
      expect.arrayContaining([expect.arrayContaining(['GPTBot', 'ai-training', '1', '1']), expect.arrayContaining(['Googlebot', 'bot', '1', '1'])]),
    );

    // AI agents from /agents: the two assistants, GPTBot and Googlebot, with their categories.
    await page.getByTestId('ai-readers').waitFor();
    const aiAgents = Object.fromEntries((await rows(page, 'ai-agents-table')).map((row) => [row[0]!, row.slice(1, 3)]));
    expect(aiAgents).toMatchObject({ ChatGPT: ['ai-assistant', '1'], Claude: ['ai-assistant', '1'], GPTBot: ['ai-training', '1'] });
    // /api was read by one assistant and no person: the one page agents favour.
    expect(await rows(page, 'ai-favoured-table')).toEqual([['/api', '1', '0']]);

    await page.locator('.chart-table summary').click();
    await expectAccessible(page, 'analytics');
    expectNoProblems(problems);
  });

  it('sorts the top pages on the server by the column clicked', async () => {
    await page.getByRole('button', { name: 'Page' }).click();
    await page.waitForURL('**/analytics?range=7d&sort=path&order=asc');
    await expect
      .poll(() => rows(page, 'pages-table'))
      .toEqual([
        ['/api', '0', '1', '1'],
        ['/guide', '3', '1', '4'],
        ['/start', '2', '0', '2'],
      ]);
    expect(await page.getByRole('columnheader', { name: 'Page' }).getAttribute('aria-sort')).toBe('ascending');
    await page.getByRole('button', { name: 'AI' }).click();
    await page.waitForURL('**/analytics?range=7d&sort=ai&order=desc');
    // Ties (one AI visitor each) by path ascending, as the API orders them.
    await expect.poll(async () => (await rows(page, 'pages-table')).map((row) => row[0])).toEqual(['/api', '/guide', '/start']);
    await page.getByRole('button', { name: 'Human' }).click();
    await expect.poll(async () => (await rows(page, 'pages-table')).map((row) => row[0])).toEqual(['/guide', '/start', '/api']);
  });

  it('pages through the top pages 25 at a time', async () => {
    await page.goto(`/projects/${manyPagesId}/analytics?range=7d`);
    await expect.poll(async () => (await rows(page, 'pages-table')).length).toBe(25);
    expect((await rows(page, 'pages-table'))[0]).toEqual(['/p01', '30', '0', '30']);
    await page.getByRole('button', { name: 'Next →' }).click();
    await page.waitForURL('**/analytics?range=7d&page=2');
    await expect
      .poll(() => rows(page, 'pages-table'))
      .toEqual([26, 27, 28, 29, 30].map((number) => [`/p${number}`, String(31 - number), '0', String(31 - number)]));
    expect(await page.getByText('Rows 26–30').count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Next →' }).isDisabled()).toBe(true);
    await page.goto(`/projects/${projectId}/analytics?range=7d`);
    await page.getByTestId('pages-table').waitFor();
  });

  it('downloads the table as CSV', async () => {
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download CSV' }).click();
    const file = await (await download).path();
    expect(readFileSync(file, 'utf8')).toBe('path,human,ai,total\r\n/guide,3,1,4\r\n/start,2,0,2\r\n/api,0,1,1\r\n');
  });

  it('a range with no hits shows how to send data', async () => {
    await page.goto(`/projects/${emptyProjectId}/analytics?range=30d`);
    const empty = page.getByRole('region', { name: 'No visits in this range yet' });
    await empty.waitFor();
    expect(await empty.textContent()).toContain(`<script defer src="${server.url}/script.js" data-project="${emptyProjectId}"></script>`);
    expect(await empty.textContent()).toContain(`/v1/analytics/${emptyProjectId}/events`);
    expect(await empty.textContent()).toContain(`docwright analytics import --project ${emptyProjectId}`);
    expect(await page.getByTestId('stat-total').textContent()).toBe('0');
    await expectAccessible(page, 'analytics empty state');
  });

  it('a custom range counts only its days', async () => {
    await page.goto(`/projects/${projectId}/analytics?range=7d`);
    await page.getByRole('button', { name: 'Custom' }).click();
    await page.getByLabel('From', { exact: true }).fill(isoDay(2));
    await page.getByLabel('To', { exact: true }).fill(isoDay(2));
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(`**/analytics?range=custom&from=${isoDay(2)}&to=${isoDay(2)}`);
    await expect.poll(() => page.getByTestId('stat-human').textContent()).toBe('1');
    expect(await page.getByTestId('stat-ai').textContent()).toBe('2');
    expect(await rows(page, 'daily-table')).toEqual([[isoDay(2), '1', '2', '3']]);
  });

  it('fits a 390 px screen', async () => {
    const phone = await openPage(browser, server.url, { width: 390, height: 844 });
    await signIn(phone.page, server);
    await phone.page.goto(`/projects/${projectId}/analytics?range=7d`);
    await phone.page.getByTestId('pages-table').waitFor();
    await phone.page.locator('.chart canvas').waitFor();
    // uPlot sizes itself to its card once the layout settles.
    await expect.poll(() => phone.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await expectAccessible(phone.page, 'analytics at 390 px');
    expectNoProblems(phone.problems);
    await phone.context.close();
  });
});
