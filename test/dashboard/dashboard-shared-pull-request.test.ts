import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeModelServer, type FakeModelServer } from '../fakes/fake-model-server.js';
import { createDocsRepository } from '../helpers/docs-repository.js';
import { docsAgentScript } from '../jobs/docs-agent-script.js';
import { fakeModelEnvironment, launchChromium, openPage, startDashboardServer, type DashboardServer } from './dashboard-harness.js';
import { expectAccessible, expectNoProblems } from './dashboard-expectations.js';

/** A pull request link as an agent job posts it, opened by someone with no account: the link's token is all they have. */
describe('a shared pull request link in Chromium', () => {
  let model: FakeModelServer;
  let server: DashboardServer;
  let browser: Browser;
  let prLink: string;

  beforeAll(async () => {
    model = await startFakeModelServer({ script: docsAgentScript });
    server = await startDashboardServer({
      environment: fakeModelEnvironment(model.url),
    });
    const { services } = server.server;
    const projectId = (await services.projects.create({ name: 'Docs', repository: createDocsRepository(), ref: 'main', forge: 'local', settings: {} })).id;
    const headers = { authorization: `Bearer ${(await services.keys.create({ projectId, scope: 'admin' })).key}`, 'content-type': 'application/json' };
    const created = (await (
      await fetch(`${server.url}/v2/agent/${projectId}/job`, { method: 'POST', headers, body: JSON.stringify({ prompt: 'Add a troubleshooting page' }) })
    ).json()) as { id: string };
    for (let attempt = 0; attempt < 300; attempt++) {
      const job = (await (await fetch(`${server.url}/v2/agent/${projectId}/job/${created.id}`, { headers })).json()) as {
        status: string;
        prLink: string | null;
      };
      if (job.status !== 'active') {
        if (!job.prLink) throw new Error(`the job ended ${job.status} without a pull request`);
        prLink = job.prLink;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await model?.close();
  });

  it('shows the description, files and diff read-only, with no referrer and both diff layouts', async () => {
    const { context, page, problems } = await openPage(browser, server.url);
    const response = await page.goto(prLink);
    expect(response!.headers()['referrer-policy']).toBe('no-referrer');
    expect(response!.headers()['cache-control']).toBe('private, no-store');
    await page.locator('.d2h-file-side-diff').first().waitFor();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toContain('Add a troubleshooting page');
    expect(await page.locator('.pr-meta [data-status="open"]').count()).toBe(1);
    expect(await page.getByTestId('pr-files').textContent()).toMatch(/troubleshooting\.mdx\s*added\s*\+7\s*−0/);
    // The description is the server's sanitised HTML: a blockquote of the instruction.
    expect(await page.locator('.pr-body blockquote').first().textContent()).toContain('Add a troubleshooting page');
    expect(await page.getByText('Read-only view from a shared link.').count()).toBe(1);
    expect(await page.getByRole('button', { name: /Merge/ }).count()).toBe(0);
    expect(await page.locator('.diff-scroll').textContent()).toContain('If the CLI fails, run it again.');
    await expectAccessible(page, 'shared pull request, side by side');

    await page.getByRole('button', { name: 'Unified' }).click();
    expect(await page.locator('.d2h-file-side-diff').count()).toBe(0);
    expect(await page.locator('.d2h-file-diff').count()).toBe(2);
    await expectAccessible(page, 'shared pull request, unified');
    // The choice is remembered.
    await page.reload();
    await page.locator('.d2h-file-diff').first().waitFor();
    expect(await page.locator('.d2h-file-side-diff').count()).toBe(0);
    expectNoProblems(problems);
    await context.close();
  });

  it('passes axe in the dark theme too', async () => {
    const { context, page, problems } = await openPage(browser, server.url, { colorScheme: 'dark' });
    await page.goto(prLink);
    await page.locator('.d2h-file-wrapper').first().waitFor();
    expect(await page.locator('.d2h-dark-color-scheme').count()).toBeGreaterThan(0);
    await expectAccessible(page, 'shared pull request, dark');
    expectNoProblems(problems);
    await context.close();
  });

  it('without the token, or with a wrong one, it is the 404 of a pull request that does not exist', async () => {
    const { context, page } = await openPage(browser, server.url);
    for (const url of [prLink.split('?')[0]!, `${prLink.split('?')[0]!}?token=wrong`]) {
      await page.goto(url);
      const alert = page.getByRole('alert');
      await alert.waitFor();
      expect(await alert.textContent()).toContain('not_found');
      expect(await page.locator('.d2h-file-wrapper').count()).toBe(0);
    }
    await context.close();
  });
});
