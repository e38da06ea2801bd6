// Regenerates docs/screenshots/*.png: every dashboard page in the light theme at 1280 px,
// and the jobs page at 390 px, against a real server with a fake model, a real git
// repository and generated analytics. Run with `npm run screenshots`.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { startFakeModelServer } from '../test/fakes/fake-model-server.js';
import { createDocsRepository } from '../test/helpers/docs-repository.js';
import { docsAgentScript } from '../test/jobs/docs-agent-script.js';
import { fakeModelEnvironment, launchChromium, openPage, startDashboardServer } from '../test/dashboard/dashboard-harness.js';
import { ADMIN_EMAIL, ADMIN_PASSWORD, createProjectInUi, setUpFirstAdmin } from '../test/dashboard/dashboard-flows.js';

/** Real user agents of each class (test/helpers/analytics-kit.ts has the same; it needs vitest). */
const USER_AGENTS = {
  human: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
  ai: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot',
  aiClaude: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Claude-User/1.0; +Claude-User@anthropic.com)',
  aiSearch: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; OAI-SearchBot/1.0; +https://openai.com/searchbot',
  aiTraining: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.1; +https://openai.com/gptbot',
  bot: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
};
const OUT = join(import.meta.dirname, '..', 'docs', 'screenshots');
const DAY = 86_400_000;

/** A small deterministic generator, so the pictures only change when the dashboard does. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

function sampleEvents(): unknown[] {
  const next = random(42);
  const paths = ['/quickstart', '/guides/deploy', '/api/jobs', '/api/analytics', '/concepts/classes', '/changelog', '/guides/beacon', '/faq'];
  const ais = [USER_AGENTS.ai, USER_AGENTS.aiClaude];
  const crawlers = [USER_AGENTS.aiTraining, USER_AGENTS.aiSearch, USER_AGENTS.bot];
  const today = Math.floor(Date.now() / DAY) * DAY;
  const events: unknown[] = [];
  for (let day = 1; day <= 45; day++) {
    const humans = 20 + Math.floor(next() * 25) + (day % 7 < 2 ? -10 : 0);
    const agents = 4 + Math.floor(next() * 10) + Math.floor((45 - day) / 6);
    const at = (index: number) => new Date(today - day * DAY + 8 * 3_600_000 + index * 60_000).toISOString();
    for (let index = 0; index < humans; index++) {
      events.push({
        visitorId: `h${Math.floor(next() * 400)}`,
        path: paths[Math.floor(next() * next() * paths.length)],
        timestamp: at(index),
        userAgent: USER_AGENTS.human,
      });
    }
    for (let index = 0; index < agents; index++) {
      events.push({
        visitorId: `a${Math.floor(next() * 120)}`,
        path: paths[Math.floor(next() * paths.length)],
        timestamp: at(humans + index),
        userAgent: ais[index % 2],
      });
    }
    for (let index = 0; index < 6; index++) {
      events.push({ visitorId: `c${index}`, path: paths[index % paths.length], timestamp: at(humans + agents + index), userAgent: crawlers[index % 3] });
    }
  }
  return events;
}

async function shoot(page: Page, name: string): Promise<void> {
  // Let fonts, charts and transitions settle.
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.waitForTimeout(300);
  await page.screenshot({ path: join(OUT, `${name}.png`), fullPage: true });
  console.log(`docs/screenshots/${name}.png`);
}

async function main(): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  const model = await startFakeModelServer({
    script: async (request, index) => {
      const reply = await docsAgentScript(request, index);
      return { ...reply, delayMs: reply.delayMs ?? 200 };
    },
  });
  const server = await startDashboardServer({
    environment: { ...fakeModelEnvironment(model.url), DOCWRIGHT_JOB_MAX_ATTEMPTS: '1', DOCWRIGHT_LOG_LEVEL: 'warn' },
  });
  const browser = await launchChromium();
  try {
    const { page } = await openPage(browser, server.url);
    await page.goto('/setup');
    await page.getByRole('heading', { name: 'Welcome to Docwright' }).waitFor();
    await shoot(page, 'setup');
    await setUpFirstAdmin(page, server);

    const projectId = await createProjectInUi(page, 'Acme Docs', createDocsRepository());
    await server.server.services.projects.create({ name: 'Acme API Reference', repository: createDocsRepository(), ref: 'main', forge: 'local', settings: {} });
    await page.getByLabel('Name', { exact: true }).fill('CI docs bot');
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByTestId('new-key-secret').waitFor();
    await shoot(page, 'api-keys');

    const ingest = (await server.server.services.keys.create({ projectId, scope: 'ingest' })).key;
    const events = sampleEvents();
    for (let start = 0; start < events.length; start += 1_000) {
      const response = await fetch(`${server.url}/v1/analytics/${projectId}/events`, {
        method: 'POST',
        headers: { authorization: `Bearer ${ingest}`, 'content-type': 'application/json' },
        body: JSON.stringify({ events: events.slice(start, start + 1_000) }),
      });
      if (response.status !== 202) throw new Error(`ingestion failed: ${response.status} ${await response.text()}`);
    }

    await page.goto('/');
    await page.locator('.project-card').nth(1).waitFor();
    await shoot(page, 'projects');

    await page.goto(`/projects/${projectId}/jobs`);
    for (const prompt of ['Add a troubleshooting page for proxy errors', 'The provider down test: explain rate limits', 'Is the quickstart still accurate?']) {
      await page.getByLabel('Instruction').fill(prompt);
      await page.getByRole('button', { name: 'Start job' }).click();
      await page.locator('.job-row [data-status="active"]').first().waitFor();
      await page.locator('.job-row [data-status="active"]').first().waitFor({ state: 'detached', timeout: 30_000 });
    }
    await page.getByLabel('Instruction').fill('Mention the --verbose flag in the troubleshooting page (slow)');
    await page.getByRole('button', { name: 'Start job' }).click();
    await page.locator('.job-row [data-status="active"]').first().waitFor();
    await shoot(page, 'jobs');

    const mobile = await openPage(browser, server.url, { width: 390, height: 844 });
    await mobile.page.goto('/signin');
    await mobile.page.getByLabel('Email').fill(ADMIN_EMAIL);
    await mobile.page.getByLabel('Password').fill(ADMIN_PASSWORD);
    await mobile.page.getByRole('button', { name: 'Sign in' }).click();
    await mobile.page.waitForURL(`${server.url}/`);
    await mobile.page.goto(`/projects/${projectId}/jobs`);
    await mobile.page.locator('.job-row').nth(3).waitFor();
    await shoot(mobile.page, 'jobs-390');
    await mobile.context.close();

    await page.locator('.job-row [data-status="active"]').first().waitFor({ state: 'detached', timeout: 30_000 });
    const done = page.locator('.job-row').filter({ hasText: 'troubleshooting page for proxy' });
    await done.locator('.job-row-title').click();
    await page.locator('.turn[data-turn="1"] .file-list').waitFor();
    await page.locator('.turn[data-turn="1"] details.steps').first().locator('summary').click();
    await shoot(page, 'job');

    const failed = `/projects/${projectId}/jobs?status=failed`;
    await page.goto(failed);
    await page.locator('.job-row .job-row-title').first().click();
    await page.getByRole('alert').first().waitFor();
    await shoot(page, 'job-failed');

    await page.goto(`/projects/${projectId}/analytics?range=30d`);
    await page.locator('.chart canvas').waitFor();
    await page.getByTestId('agents-table').waitFor();
    await shoot(page, 'analytics');

    await page.goto(`/projects/${projectId}/settings`);
    await page.getByLabel('Allowed beacon origins').fill('https://docs.acme.example');
    await shoot(page, 'settings');

    await page.goto('/users');
    await page.getByLabel('Email').fill('writer@acme.example');
    await page.getByLabel('Initial password').fill('a long enough password');
    await page.getByRole('button', { name: 'Add user' }).click();
    await page.getByRole('region', { name: 'Users' }).getByText('writer@acme.example').waitFor();
    await shoot(page, 'users');

    await page.goto(`/projects/${projectId}/jobs`);
    await done.getByRole('link', { name: /Pull request/ }).click();
    await page.locator('.d2h-file-wrapper').first().waitFor({ timeout: 10_000 });
    await shoot(page, 'pull-request');
    await page.getByRole('button', { name: 'Unified' }).click();
    await shoot(page, 'pull-request-unified');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL('**/signin');
    await page.getByLabel('Email').fill(ADMIN_EMAIL);
    await page.getByLabel('Password').fill('wrong password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();
    await shoot(page, 'signin');

    const dark = await openPage(browser, server.url, { colorScheme: 'dark' });
    await dark.page.goto('/signin');
    await dark.page.getByLabel('Email').fill(ADMIN_EMAIL);
    await dark.page.getByLabel('Password').fill(ADMIN_PASSWORD);
    await dark.page.getByRole('button', { name: 'Sign in' }).click();
    await dark.page.waitForURL(`${server.url}/`);
    await dark.page.goto(`/projects/${projectId}/analytics?range=30d`);
    await dark.page.locator('.chart canvas').waitFor();
    await shoot(dark.page, 'analytics-dark');
    await dark.context.close();
  } finally {
    await browser.close();
    await server.close();
    await model.close();
  }
}

await main();
