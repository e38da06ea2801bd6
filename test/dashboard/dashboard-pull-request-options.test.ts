import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeGitHubServer, type FakeGitHubServer } from '../fakes/fake-github-server.js';
import { startFakeModelServer, type FakeModelServer } from '../fakes/fake-model-server.js';
import { createDocsRepository } from '../helpers/docs-repository.js';
import { docsAgentScript } from '../jobs/docs-agent-script.js';
import { fakeModelEnvironment, launchChromium, openPage, startDashboardServer, type DashboardServer, type PageProblems } from './dashboard-harness.js';
import { createProjectInUi, setUpFirstAdmin } from './dashboard-flows.js';
import { expectAccessible, expectNoProblems } from './dashboard-expectations.js';

const TOKEN = 'ghp_dashboardOptionsToken0123456789abcd';

// One backend: the form and the turn view are the same on both; the API's rules are tested per backend elsewhere.
describe('pull request options of a new job, on a GitHub project, in Chromium', () => {
  let gitRoot: string;
  let github: FakeGitHubServer;
  let model: FakeModelServer;
  let server: DashboardServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: PageProblems;
  let projectId: string;

  beforeAll(async () => {
    gitRoot = mkdtempSync(join(tmpdir(), 'docwright-dashboard-github-'));
    mkdirSync(join(gitRoot, 'acme'));
    execFileSync('git', ['clone', '-q', '--bare', createDocsRepository(), join(gitRoot, 'acme', 'docs.git')]);
    github = await startFakeGitHubServer({ tokens: [TOKEN], gitRoot, collaborators: ['alice'] });
    model = await startFakeModelServer({ script: docsAgentScript });
    server = await startDashboardServer({
      environment: {
        ...fakeModelEnvironment(model.url),
        DOCWRIGHT_JOB_MAX_ATTEMPTS: '1',
        DOCWRIGHT_GITHUB_API_URL: github.url,
        DOCWRIGHT_GITHUB_GIT_URL: gitRoot,
      },
    });
    browser = await launchChromium();
    ({ context, page, problems } = await openPage(browser, server.url));
    await setUpFirstAdmin(page, server);

    projectId = await createProjectInUi(page, 'Acme Docs', 'https://github.com/acme/docs', { kind: 'github', token: TOKEN });
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.close();
    await model?.close();
    await github?.close();
    if (gitRoot) rmSync(gitRoot, { recursive: true, force: true });
  });

  it('sends the options, shows the server’s refusal at its field, and shows what the forge refused on the turn', async () => {
    await page.getByRole('link', { name: 'Agent jobs' }).click();
    await page.waitForURL(`**/projects/${projectId}/jobs`);
    await page.getByLabel('Instruction').fill('Add a troubleshooting page');
    await page.getByText('Pull request options').click();
    await page.getByLabel('Branch name').fill('troubleshooting');
    await page.getByLabel('Reviewers').fill('alice, ghost');
    await page.getByLabel('Labels').fill('docs, needs review');
    await page.getByLabel('Open as a draft').check();
    await page.getByLabel("Merge automatically once the forge's checks pass").check();
    await expectAccessible(page, 'jobs with pull request options');

    // Draft and auto-merge together: the server's 400, shown beside the auto-merge box; nothing is created.
    await page.getByRole('button', { name: 'Start job' }).click();
    await page.locator('.field-error', { hasText: 'cannot be combined with draft' }).waitFor();
    expect(await page.locator('.job-row').count()).toBe(0);

    await page.getByLabel("Merge automatically once the forge's checks pass").uncheck();
    await page.getByRole('button', { name: 'Start job' }).click();
    const row = page.locator('.job-row').first();
    await row.waitFor();
    const jobId = (await row.getAttribute('data-job-id'))!;
    await row.locator('[data-status="completed"]').waitFor({ timeout: 30_000 });

    const [pull] = github.pulls;
    expect(pull).toMatchObject({ draft: true, head: { ref: 'docwright/troubleshooting' } });
    const labels = github.requests.find((request) => request.method === 'POST' && request.path.endsWith('/labels'));
    expect(labels?.body).toMatchObject({ labels: ['docs', 'needs review'] });

    await page.goto(`/projects/${projectId}/jobs/${jobId}`);
    const warnings = page.locator('.turn-warnings');
    await warnings.waitFor();
    // GitHub refuses the whole reviewer request when one login is not a collaborator, without naming it.
    expect(await warnings.textContent()).toMatch(/while requesting reviewers on pull request #1 of acme\/docs: .*not a collaborator/);
    await expectAccessible(page, 'job with forge warnings');
    expectNoProblems(problems);
  });
});
