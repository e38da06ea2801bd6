import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeModelServer, type FakeModelServer } from '../fakes/fake-model-server.js';
import { createDocsRepository } from '../helpers/docs-repository.js';
import { BACKENDS } from '../helpers/test-database.js';
import { docsAgentScript } from '../jobs/docs-agent-script.js';
import { LOOPBACK_ALLOWED } from '../webhooks/webhook-kit.js';
import { startWebhookReceiver, verifyWithReference, type WebhookReceiver } from '../webhooks/webhook-receiver.js';
import { fakeModelEnvironment, launchChromium, openPage, startDashboardServer, type DashboardServer, type PageProblems } from './dashboard-harness.js';
import { createProjectInUi, setUpFirstAdmin } from './dashboard-flows.js';
import { expectAccessible, expectNoProblems } from './dashboard-expectations.js';

interface DeliveredEvent {
  type: string;
  data: { jobId: string; projectId: string; status: string };
}

// The webhook pages write through the same API on both backends: run them on both.
describe.each(BACKENDS)('webhooks in Chromium, delivered to a loopback receiver (%s)', (dialect) => {
  let model: FakeModelServer;
  let receiver: WebhookReceiver;
  let server: DashboardServer;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let problems: PageProblems;
  let projectId: string;
  let firstSecret: string;
  let webhookId: string;
  const repository = createDocsRepository();
  /** Every write the page sent to a path containing `fragment`, as "METHOD path". */
  const writes: string[] = [];

  beforeAll(async () => {
    model = await startFakeModelServer({ script: docsAgentScript });
    // The receiver fails until the test lets it succeed: the log then has a failure to show.
    receiver = await startWebhookReceiver([500]);
    server = await startDashboardServer({ dialect, environment: { ...fakeModelEnvironment(model.url), ...LOOPBACK_ALLOWED, DOCWRIGHT_JOB_MAX_ATTEMPTS: '1' } });
    browser = await launchChromium();
    ({ context, page, problems } = await openPage(browser, server.url));
    page.on('request', (request) => {
      if (request.method() !== 'GET') writes.push(`${request.method()} ${new URL(request.url()).pathname}`);
    });
    await setUpFirstAdmin(page, server);
    projectId = await createProjectInUi(page, 'Hooked Docs', repository);
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.close();
    await receiver?.close();
    await model?.close();
  });

  it('a webhook is created with its events, its secret shown once; bad URLs are refused with a message', async () => {
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.waitForURL(`**/projects/${projectId}/webhooks`);
    await page.getByRole('heading', { name: 'No webhooks yet' }).waitFor();
    await expectAccessible(page, 'webhooks page (empty)');

    // Not a URL: the form says so and sends nothing.
    writes.length = 0;
    await page.getByLabel('Endpoint URL').fill('ci.example.com/hooks');
    await page.getByRole('button', { name: 'Create webhook' }).click();
    await page.getByText('must be a full URL').waitFor();
    expect(writes).toEqual([]);

    // A link-local address (cloud metadata): only the server knows it is refused; its problem is shown.
    await page.getByLabel('Endpoint URL').fill('http://169.254.169.254/latest/meta-data');
    await page.getByRole('button', { name: 'Create webhook' }).click();
    const refused = page.getByRole('alert').filter({ hasText: 'Could not create the webhook' });
    await expect.poll(() => refused.textContent()).toContain('webhook_url_refused');
    expect(writes).toEqual([`POST /v1/projects/${projectId}/webhooks`]);

    await page.getByLabel('Endpoint URL').fill(receiver.url);
    await page.getByLabel('Description (optional)').fill('CI notifications');
    await page.getByLabel('job.completed').check();
    await page.getByRole('button', { name: 'Create webhook' }).click();
    const shown = page.getByTestId('webhook-secret');
    await expect.poll(() => shown.textContent()).toMatch(/^whsec_[A-Za-z0-9+/=]{40,}$/);
    firstSecret = (await shown.textContent())!;
    expect(await page.getByRole('note').textContent()).toContain('you won’t see it again');
    const list = page.getByRole('region', { name: 'Webhook endpoints' });
    await expect.poll(() => list.textContent()).toContain(receiver.url);
    expect(await list.textContent()).toContain('job.completed');
    expect(await list.locator('[data-enabled]').getAttribute('data-enabled')).toBe('true');
    await expectAccessible(page, 'webhooks page with a new secret');

    const stored = await server.server.services.webhooks.list(projectId);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ url: receiver.url, description: 'CI notifications', events: ['job.completed'], enabled: true });
    webhookId = stored[0]!.id;

    // Shown once: after a reload the list is there and the secret is not.
    await page.getByRole('button', { name: 'I have copied it' }).click();
    await page.reload();
    await expect.poll(() => list.textContent()).toContain(receiver.url);
    expect(await page.content()).not.toContain(firstSecret);
  });

  it('a job’s completion is delivered, fails at the receiver, is shown in the log and redelivered with the same webhook-id after a rotation', async () => {
    await page.goto(`/projects/${projectId}/jobs`);
    await page.getByLabel('Instruction').fill('Add a troubleshooting page');
    await page.getByRole('button', { name: 'Start job' }).click();
    await page.locator('.job-row').first().locator('[data-status="completed"]').waitFor({ timeout: 30_000 });

    await page.goto(`/projects/${projectId}/webhooks`);
    await page.getByRole('link', { name: receiver.url }).click();
    await page.waitForURL(`**/projects/${projectId}/webhooks/${webhookId}`);
    const deliveries = page.getByRole('region', { name: 'Deliveries' });
    const row = deliveries.locator('tr[data-message-id]');
    // The log refreshes itself while a delivery is pending; the receiver's 500 fails the first attempt.
    await expect.poll(() => row.first().textContent(), { timeout: 20_000 }).toContain('http_status');
    // The filter sent only job.completed, not the pull_request.opened the same run recorded.
    expect(await row.count()).toBe(1);
    expect(await row.textContent()).toContain('job.completed');
    expect(await row.locator('[data-status]').getAttribute('data-status')).toBe('pending');
    const messageId = (await row.getAttribute('data-message-id'))!;
    await row.getByRole('button', { name: 'Attempts' }).click();
    const attempts = page.getByRole('table', { name: `Attempts of ${messageId}` });
    await expect.poll(() => attempts.locator('[data-testid="response-status"]').first().textContent()).toBe('500');
    await expectAccessible(page, 'webhook page with a failed delivery');

    // What arrived is signed with the secret the page showed once.
    expect(receiver.received.length).toBeGreaterThanOrEqual(1);
    const event = verifyWithReference(firstSecret, receiver.received[0]!, Date.now()) as DeliveredEvent;
    expect(event).toMatchObject({ type: 'job.completed', data: { projectId, status: 'completed' } });
    expect(receiver.received[0]!.id).toBe(messageId);

    // Rotate: a new secret, shown once, with the overlap explained.
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    await page.getByRole('dialog', { name: 'Rotate the signing secret?' }).getByRole('button', { name: 'Rotate secret' }).click();
    const shown = page.getByTestId('webhook-secret');
    await expect.poll(() => shown.textContent()).toMatch(/^whsec_/);
    const newSecret = (await shown.textContent())!;
    expect(newSecret).not.toBe(firstSecret);
    expect(await page.getByRole('note').textContent()).toMatch(/Overlap: until .* two signatures/);
    expect(await page.getByTestId('secret-state').textContent()).toContain('previous secret also signs until');

    // The receiver recovers; a redelivery succeeds with the same webhook-id and both signatures.
    receiver.statuses.splice(0, receiver.statuses.length, 200);
    await row.getByRole('button', { name: `Redeliver job.completed ${messageId}` }).click();
    await expect.poll(() => row.locator('[data-status]').getAttribute('data-status'), { timeout: 20_000 }).toBe('succeeded');
    // The attempts stay open and reload as the message changes.
    const manual = attempts.locator('tr[data-trigger="manual"]');
    await expect.poll(() => manual.getAttribute('data-outcome')).toBe('succeeded');
    expect(await manual.locator('[data-testid="response-status"]').textContent()).toBe('200');
    expect(new Set(receiver.received.map((delivery) => delivery.id))).toEqual(new Set([messageId]));
    const last = receiver.received.at(-1)!;
    expect(last.signature.split(' ')).toHaveLength(2);
    expect(verifyWithReference(newSecret, last, Date.now())).toMatchObject({ type: 'job.completed' });
    expect(verifyWithReference(firstSecret, last, Date.now())).toMatchObject({ type: 'job.completed' });
  });

  it('disable and enable change the endpoint; delete asks first, then removes it', async () => {
    const badge = page.locator('.section-header [data-enabled]');
    await page.getByRole('button', { name: 'Disable', exact: true }).click();
    await expect.poll(() => badge.getAttribute('data-enabled')).toBe('false');
    expect((await server.server.services.webhooks.get(projectId, webhookId)).enabled).toBe(false);
    await page.getByRole('button', { name: 'Enable', exact: true }).click();
    await expect.poll(() => badge.getAttribute('data-enabled')).toBe('true');
    expect((await server.server.services.webhooks.get(projectId, webhookId)).enabled).toBe(true);

    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete this webhook?' });
    await expectAccessible(page, 'delete webhook dialog');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    expect(await server.server.services.webhooks.list(projectId)).toHaveLength(1);

    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await dialog.getByRole('button', { name: 'Delete webhook' }).click();
    await page.waitForURL(`**/projects/${projectId}/webhooks`);
    await page.getByRole('heading', { name: 'No webhooks yet' }).waitFor();
    expect(await server.server.services.webhooks.list(projectId)).toEqual([]);
    expectNoProblems(problems);
  });

  it('site hosts are edited in the settings, checked like the server checks them, and read back through the API', async () => {
    const key = (await server.server.services.keys.create({ projectId })).key;
    const readHosts = async () => {
      const response = await fetch(`${server.url}/v1/projects/${projectId}`, { headers: { authorization: `Bearer ${key}` } });
      expect(response.status).toBe(200);
      return ((await response.json()) as { settings: { siteHosts?: string[] } }).settings.siteHosts;
    };
    await page.goto(`/projects/${projectId}/settings`);
    const field = page.getByLabel('Site hosts');

    // A URL where a host belongs: refused by the form, nothing sent.
    writes.length = 0;
    await field.fill('https://docs.example.com');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('write the host alone, without the scheme').waitFor();
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    expect(writes).toEqual([]);
    expect(await readHosts()).toBeUndefined();

    await field.fill('Docs.Example.com\nstatus.example.com:8443');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Settings saved.').waitFor();
    expect(await readHosts()).toEqual(['Docs.Example.com', 'status.example.com:8443']);
    await page.reload();
    await expect.poll(() => field.inputValue()).toBe('Docs.Example.com\nstatus.example.com:8443');
    await expectAccessible(page, 'settings with site hosts');

    // More hosts than a project may name: the server's 400 with its code and the field's message.
    await field.fill(Array.from({ length: 101 }, (_, index) => `h${index}.example.com`).join('\n'));
    await page.getByRole('button', { name: 'Save settings' }).click();
    const problem = page.getByRole('alert').filter({ hasText: 'Could not save the settings' });
    await expect.poll(() => problem.textContent()).toContain('validation_failed');
    expect(await problem.textContent()).toContain('settings.siteHosts');
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    expect(await readHosts()).toEqual(['Docs.Example.com', 'status.example.com:8443']);

    // Emptied: the setting is removed (the beacon origins' hosts apply again).
    await field.fill('');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await expect.poll(readHosts).toBeUndefined();
    expectNoProblems(problems);
  });
});
