import { afterEach, describe, expect, test } from 'vitest';
import { BACKENDS } from '../helpers/test-database.js';
import { runCli } from '../helpers/run-cli.js';
import { startListeningTestApp, type ListeningTestApp } from '../helpers/listening-test-app.js';
import { createLogger } from '../../src/app/logger.js';
import { createWebhookWorker } from '../../src/webhooks/start-webhook-worker.js';
import { LOOPBACK_ALLOWED } from './webhook-kit.js';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver.js';

describe.each(BACKENDS)('docwright webhooks [%s]', (dialect) => {
  let server: ListeningTestApp;
  let receiver: WebhookReceiver;
  afterEach(async () => {
    await server?.close();
    await receiver?.close();
  });

  test('create, list, rotate, deliveries and redeliver through the CLI', async () => {
    server = await startListeningTestApp(dialect, LOOPBACK_ALLOWED);
    receiver = await startWebhookReceiver([200]);
    const environment = { DOCWRIGHT_URL: server.url, DOCWRIGHT_API_KEY: server.apiKey, DOCWRIGHT_PROJECT: server.projectId };
    const cli = (...args: string[]) => runCli(['webhooks', ...args], environment);

    const created = await cli('create', '--url', receiver.url, '--events', 'job.archived,job.failed', '--json');
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    const { webhook, secret } = JSON.parse(created.stdout) as { webhook: { id: string; events: string[] }; secret: string };
    expect(webhook.events).toEqual(['job.archived', 'job.failed']);
    expect(secret).toMatch(/^whsec_/);

    const human = await cli('list');
    expect(human.stdout).toContain(webhook.id);
    expect(human.stdout).toContain('job.archived,job.failed');

    const rotated = await cli('rotate-secret', webhook.id, '--overlap-hours', '1');
    expect(rotated.code).toBe(0);
    expect(rotated.stdout).toMatch(/shown this once[^\n]*\n {2}whsec_/);
    expect(rotated.stdout).not.toContain(secret);

    const { testApp } = server;
    const project = await testApp.services.projects.get(server.projectId);
    const { job } = await testApp.services.jobs.create(project, 'Anything');
    await testApp.services.jobs.archive(project, job.id);
    await createWebhookWorker(testApp.services, createLogger({ level: 'silent' })).deliverDue();
    const deliveries = JSON.parse((await cli('deliveries', webhook.id, '--json')).stdout) as { messages: Array<{ id: string; status: string }> };
    expect(deliveries.messages).toMatchObject([{ status: 'succeeded' }]);
    const messageId = deliveries.messages[0]!.id;
    expect((await cli('delivery', webhook.id, messageId)).stdout).toMatch(/1\s+scheduled.*succeeded\s+200/);
    const redelivered = await cli('redeliver', webhook.id, messageId);
    expect(redelivered.stdout).toBe(`Message ${messageId} queued for redelivery.\n`);

    // get, update and delete, each through its SDK call.
    expect((await cli('get', webhook.id)).stdout).toMatch(/events\s+job\.archived, job\.failed/);
    const updated = JSON.parse((await cli('update', webhook.id, '--disable', '--events', '', '--json')).stdout) as { enabled: boolean; events: string[] };
    expect(updated).toMatchObject({ enabled: false, events: [] });
    expect(await testApp.services.webhooks.get(server.projectId, webhook.id)).toMatchObject({ enabled: false, events: [] });
    expect((await cli('delete', webhook.id)).stdout).toBe(`Deleted webhook endpoint ${webhook.id}.\n`);
    expect(await testApp.services.webhooks.list(server.projectId)).toEqual([]);
    const gone = await cli('get', webhook.id);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/^docwright: .+\n$/);

    const refused = await cli('create', '--url', 'ftp://example.com/');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe('docwright: url must be an http:// or https:// URL.\n');
    const badEvent = await cli('create', '--url', receiver.url, '--events', 'job.exploded');
    expect(badEvent.code).toBe(2);
    expect(badEvent.stderr).toContain('unknown event job.exploded');
  });
});

describe('docwright webhooks --help', () => {
  test('every subcommand has help', async () => {
    for (const name of ['list', 'create', 'get', 'update', 'delete', 'rotate-secret', 'deliveries', 'delivery', 'redeliver']) {
      const help = await runCli(['webhooks', name, '--help'], {});
      expect(help.code).toBe(0);
      expect(help.stdout).toContain('--json');
    }
  });
});
