import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeModelServer, type FakeModelServer } from '../fakes/fake-model-server.js';
import { createDocsRepository } from '../helpers/docs-repository.js';
import { BACKENDS } from '../helpers/test-database.js';
import { docsAgentScript } from '../jobs/docs-agent-script.js';
import { fakeModelEnvironment, launchChromium, openPage, startDashboardServer, type DashboardServer, type PageProblems } from './dashboard-harness.js';
import { createProjectInUi, expectHeading, setUpFirstAdmin, signIn } from './dashboard-flows.js';
import { expectAccessible, expectNoProblems } from './dashboard-expectations.js';

/** The fake model answers after a pause, so the test can see a job while it is active. */
const THINKING_MS = 1_500;

// Marked * in the issue: the same flows on both backends.
describe.each(BACKENDS)('agent jobs in Chromium, against the fake model (%s)', (dialect) => {
  let model: FakeModelServer;
  let server: DashboardServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: PageProblems;
  let projectId: string;
  let jobId: string;
  const repository = createDocsRepository();

  beforeAll(async () => {
    model = await startFakeModelServer({
      script: async (request, index) => ({ ...(await docsAgentScript(request, index)), delayMs: request.toolRounds === 0 ? THINKING_MS : 0 }),
    });
    server = await startDashboardServer({
      dialect,
      environment: { ...fakeModelEnvironment(model.url), DOCWRIGHT_JOB_MAX_ATTEMPTS: '1' },
    });
    browser = await launchChromium();
    ({ context, page, problems } = await openPage(browser, server.url));
    await setUpFirstAdmin(page, server);
    projectId = await createProjectInUi(page, 'Example Docs', repository);
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.close();
    await model?.close();
  });

  it('a new job goes from active to completed with a pull request link, without a reload', async () => {
    await page.getByRole('link', { name: 'Agent jobs' }).click();
    await page.waitForURL(`**/projects/${projectId}/jobs`);
    await page.getByRole('heading', { name: 'No jobs yet' }).waitFor();
    // Subscribed to the project's job stream (not the polling fallback).
    await page.locator('[data-live="live"]').waitFor();
    await expectAccessible(page, 'jobs (empty)');

    await page.getByLabel('Instruction').fill('Add a troubleshooting page');
    await page.getByRole('button', { name: 'Start job' }).click();
    const row = page.locator('.job-row').first();
    await row.locator('[data-status="active"]').waitFor();
    jobId = (await row.getAttribute('data-job-id'))!;
    expect(await row.textContent()).toContain('Add a troubleshooting page');
    // The page is never reloaded and the list never fetched again: the stream moves the badge.
    const navigations: string[] = [];
    const listReads: string[] = [];
    page.on('framenavigated', (frame) => frame === page.mainFrame() && navigations.push(frame.url()));
    page.on('request', (request) => request.url().includes(`/v2/agent/${projectId}/jobs?`) && listReads.push(request.url()));
    await row.locator('[data-status="completed"]').waitFor({ timeout: 30_000 });
    await row.getByRole('link', { name: /Pull request/ }).waitFor();
    expect(navigations).toEqual([]);
    expect(listReads).toEqual([]);
    expect(await row.getByRole('link', { name: /Pull request/ }).getAttribute('href')).toMatch(new RegExp(`^/projects/${projectId}/pulls/1\\?token=`));
    await expectAccessible(page, 'jobs with a completed job');
  });

  it('the jobs and job pages fit a 390 px screen', async () => {
    const phone = await openPage(browser, server.url, { width: 390, height: 844 });
    await signIn(phone.page, server);
    for (const path of [`/projects/${projectId}/jobs`, `/projects/${projectId}/jobs/${jobId}`]) {
      await phone.page.goto(path);
      await phone.page
        .locator(path.endsWith('/jobs') ? '.job-row' : '.turn')
        .first()
        .waitFor();
      expect(await phone.page.evaluate(() => document.documentElement.scrollWidth), path).toBeLessThanOrEqual(390);
      await expectAccessible(phone.page, `${path} at 390 px`);
    }
    expectNoProblems(phone.problems);
    await phone.context.close();
  });

  it('the status filter narrows the list', async () => {
    await page.getByLabel('Status').selectOption('failed');
    await page.waitForURL('**/jobs?status=failed');
    await page.getByRole('heading', { name: 'No failed jobs' }).waitFor();
    await page.getByLabel('Status').selectOption('completed');
    await page.locator(`.job-row[data-job-id="${jobId}"]`).waitFor();
    await page.getByLabel('Status').selectOption('');
  });

  it('the job page reads like a pull request conversation and takes a follow-up', async () => {
    await page.locator(`.job-row[data-job-id="${jobId}"] .job-row-title`).click();
    await page.waitForURL(`**/projects/${projectId}/jobs/${jobId}`);
    await expectHeading(page, 'Add a troubleshooting page');
    const first = page.locator('.turn[data-turn="1"]');
    await first.getByText('Added troubleshooting.mdx and linked it in the navigation.').waitFor();
    expect(await first.locator('.file-list').textContent()).toContain('troubleshooting.mdx');
    expect(await first.locator('.file-list').textContent()).toContain('docs.json');
    // Tool steps are there, collapsed.
    const steps = first.locator('details.steps').first();
    expect(await steps.getAttribute('open')).toBeNull();
    expect(await steps.locator('summary').textContent()).toMatch(/\d+ tool steps?/);
    await expectAccessible(page, 'job page');

    await page.getByLabel('Follow-up instruction').fill('Mention the verbose flag');
    await page.getByRole('button', { name: 'Send follow-up' }).click();
    const second = page.locator('.turn[data-turn="2"]');
    await second.getByText('Mention the verbose flag').waitFor();
    await second.getByText('Mentioned the --verbose flag in troubleshooting.mdx.').waitFor({ timeout: 30_000 });
    await page.locator('.job-meta [data-status="completed"]').waitFor();
  });

  it('a failed job shows its error code', async () => {
    await page.goto(`/projects/${projectId}/jobs`);
    await page.getByLabel('Instruction').fill('Try it while the provider down');
    await page.getByRole('button', { name: 'Start job' }).click();
    const row = page.locator('.job-row').first();
    await row.locator('[data-status="failed"]').waitFor({ timeout: 30_000 });
    expect(await row.textContent()).toContain('model_error');
    await row.locator('.job-row-title').click();
    const alert = page.getByRole('alert').filter({ hasText: 'The job failed' });
    await alert.waitFor();
    expect(await alert.textContent()).toContain('model_error');
    await expectAccessible(page, 'failed job page');
  });

  it('archiving asks first and then ends the conversation', async () => {
    await page.goto(`/projects/${projectId}/jobs/${jobId}`);
    await page.getByRole('button', { name: 'Archive' }).click();
    await page.getByRole('dialog', { name: 'Archive this job?' }).getByRole('button', { name: 'Archive job' }).click();
    await page.locator('.job-meta [data-status="archived"]').waitFor();
    expect(await page.getByLabel('Follow-up instruction').count()).toBe(0);
    expect((await server.server.services.jobRepository.get(projectId, jobId)).status).toBe('archived');
    expectNoProblems(problems);
  });
});
