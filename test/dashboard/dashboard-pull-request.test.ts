import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeModelServer, type FakeModelServer } from '../fakes/fake-model-server.js';
import { createDocsRepository, git } from '../helpers/docs-repository.js';
import { docsAgentScript } from '../jobs/docs-agent-script.js';
import { pushOnto } from '../pull-requests/push-page.js';
import { fakeModelEnvironment, launchChromium, openPage, startDashboardServer, type DashboardServer, type PageProblems } from './dashboard-harness.js';
import { createProjectInUi, setUpFirstAdmin } from './dashboard-flows.js';
import { expectAccessible, expectNoProblems } from './dashboard-expectations.js';

describe('local pull requests in Chromium', () => {
  let model: FakeModelServer;
  let server: DashboardServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: PageProblems;
  let projectId: string;
  let prLink: string;
  const repository = createDocsRepository();

  /** Starts a job on the jobs page and waits for its pull request link; answers the link's href. */
  async function jobWithPullRequest(prompt: string): Promise<string> {
    await page.goto(`/projects/${projectId}/jobs`);
    await page.getByLabel('Instruction').fill(prompt);
    await page.getByRole('button', { name: 'Start job' }).click();
    const row = page.locator('.job-row').filter({ hasText: prompt });
    const link = row.getByRole('link', { name: /Pull request/ });
    await link.waitFor({ timeout: 30_000 });
    return (await link.getAttribute('href'))!;
  }

  beforeAll(async () => {
    model = await startFakeModelServer({ script: docsAgentScript });
    server = await startDashboardServer({
      environment: fakeModelEnvironment(model.url),
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

  it('opens from the job list with its description, files and a side-by-side or unified diff', async () => {
    prLink = await jobWithPullRequest('Add a troubleshooting page');
    await page
      .locator('.job-row')
      .filter({ hasText: 'Add a troubleshooting page' })
      .getByRole('link', { name: /Pull request/ })
      .click();
    await page.waitForURL(`**${prLink}`);
    await page.locator('.pr-title').waitFor();
    expect(await page.locator('.pr-meta [data-status="open"]').count()).toBe(1);
    const files = page.getByTestId('pr-files');
    await files.waitFor();
    expect(await files.textContent()).toContain('troubleshooting.mdx');
    expect(await files.textContent()).toContain('docs.json');
    expect(await page.locator('.pr-body').textContent()).toContain('troubleshooting');
    // Side by side at 1280 px, then unified.
    await page.locator('.d2h-file-side-diff').first().waitFor();
    expect(await page.locator('.d2h-file-wrapper').count()).toBe(2);
    expect(await page.locator('.diff-scroll').textContent()).toContain('If the CLI fails, run it again.');
    await page.getByRole('button', { name: 'Unified' }).click();
    expect(await page.getByRole('button', { name: 'Unified' }).getAttribute('aria-pressed')).toBe('true');
    expect(await page.locator('.d2h-file-side-diff').count()).toBe(0);
    expect(await page.locator('.d2h-file-diff').count()).toBe(2);
    await expectAccessible(page, 'pull request');
  });

  it('merges into the base branch of the real repository, only the head the page showed', async () => {
    await page.goto(prLink);
    await page.getByTestId('pr-files').waitFor();
    // A commit reaches the branch after the page loaded: the click must not merge it unseen.
    const branch = git(repository, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/docwright/');
    const pushed = pushOnto(repository, branch, 'Pushed after the review.\n', 'faq.mdx');
    const before = git(repository, 'rev-parse', 'main');
    await page.getByRole('button', { name: 'Merge into main' }).click();
    const alert = page.getByRole('alert');
    await expect.poll(() => alert.textContent()).toContain('head_moved');
    expect(await alert.textContent()).toContain('nothing was merged');
    expect(git(repository, 'rev-parse', 'main')).toBe(before);
    // The view was reloaded: the new commit and its file are on the page now.
    await expect.poll(() => page.getByTestId('pr-files').textContent()).toContain('faq.mdx');
    expect(await page.getByTestId('pr-head-commit').textContent()).toContain(pushed.slice(0, 12));
    expect(await page.getByTestId('pr-head-moved').textContent()).toContain('review the new changes');
    expect(await page.locator('.diff-scroll').textContent()).toContain('Pushed after the review.');
    expect(await page.locator('.pr-meta [data-status="open"]').count()).toBe(1);
    await expectAccessible(page, 'pull request whose head moved');

    await page.getByRole('button', { name: 'Merge into main' }).click();
    await page.locator('.pr-meta [data-status="merged"]').waitFor();
    expect(git(repository, 'rev-parse', 'main^2')).toBe(pushed);
    expect(await page.getByRole('button', { name: 'Merge into main' }).count()).toBe(0);
    expect(git(repository, 'show', 'main:troubleshooting.mdx')).toContain('If the CLI fails, run it again.');
    expect(git(repository, 'show', 'main:docs.json')).toContain('"troubleshooting"');
    await page.goto(`/projects/${projectId}/jobs`);
    await page.getByRole('link', { name: 'Pull request (merged)' }).waitFor();
  });

  it('a merge conflict is shown with its files, and nothing is merged', async () => {
    const link = await jobWithPullRequest('Mention the verbose flag');
    // Someone changes the same line on main meanwhile.
    writeFileSync(join(repository, 'troubleshooting.mdx'), '---\ntitle: Troubleshooting\n---\n\n# Troubleshooting\n\nIf the CLI fails, read its log.\n');
    git(repository, 'commit', '-q', '-am', 'Reword troubleshooting');
    const before = git(repository, 'rev-parse', 'main');
    await page.goto(link);
    await page.getByRole('button', { name: 'Merge into main' }).click();
    const alert = page.getByRole('alert');
    await expect.poll(() => alert.textContent()).toContain('merge_conflict');
    expect(await alert.textContent()).toContain('troubleshooting.mdx');
    expect(await alert.textContent()).toContain('nothing was merged');
    expect(git(repository, 'rev-parse', 'main')).toBe(before);
    expect(await page.locator('.pr-meta [data-status="open"]').count()).toBe(1);
    await expectAccessible(page, 'pull request with a conflict');

    await page.getByRole('button', { name: 'Close pull request' }).click();
    await page
      .getByRole('dialog', { name: /Close pull request/ })
      .getByRole('button', { name: 'Close pull request' })
      .click();
    await page.locator('.pr-meta [data-status="closed"]').waitFor();
    expectNoProblems(problems);
  });
});
