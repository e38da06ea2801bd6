import { afterEach, describe, expect, test } from 'vitest';
import { BACKENDS } from '../helpers/test-database.js';
import { createTestProject } from '../helpers/test-app.js';
import { createWebhookKit, type WebhookKit } from './webhook-kit.js';

describe.each(BACKENDS)('webhook endpoints API [%s]', (dialect) => {
  let kit: WebhookKit;
  afterEach(async () => kit?.close());

  const path = (suffix = '') => `/v1/projects/${kit.projectId}/webhooks${suffix}`;

  test('create, list, get, change, delete; the secret is shown once and stored only sealed', async () => {
    kit = await createWebhookKit(dialect);
    const created = await kit.api('POST', path(), { url: 'http://127.0.0.1:9/a', description: 'CI', events: ['job.failed', 'job.completed', 'job.failed'] });
    expect(created.status).toBe(201);
    expect(created.headers['cache-control']).toBe('no-store');
    const id = created.body.webhook.id as string;
    expect(created.headers['location']).toBe(path(`/${id}`));
    expect(created.body.webhook).toMatchObject({ url: 'http://127.0.0.1:9/a', description: 'CI', events: ['job.completed', 'job.failed'], enabled: true });
    expect(created.body.webhook).not.toHaveProperty('secret');
    const secret = created.body.secret as string;
    const row = await kit.services.database.db.selectFrom('webhook_endpoints').selectAll().executeTakeFirstOrThrow();
    expect(JSON.stringify(row)).not.toContain(secret.slice('whsec_'.length));
    expect(row.secret_sealed).toMatch(/^v2\./);

    expect((await kit.api('GET', path())).body.webhooks).toMatchObject([{ id }]);
    expect((await kit.api('GET', path(`/${id}`))).body).not.toHaveProperty('secret');
    const changed = await kit.api('PATCH', path(`/${id}`), { enabled: false, events: [] });
    expect(changed.body).toMatchObject({ enabled: false, events: [] });
    expect((await kit.api('DELETE', path(`/${id}`))).status).toBe(204);
    expect((await kit.api('GET', path(`/${id}`))).status).toBe(404);
  });

  test('bad input is a 400 problem; another project cannot see the endpoint', async () => {
    kit = await createWebhookKit(dialect);
    const unknownEvent = await kit.api('POST', path(), { url: 'http://127.0.0.1:9/a', events: ['job.exploded'] });
    expect(unknownEvent.status).toBe(400);
    expect(unknownEvent.body.code).toBe('validation_failed');
    expect((await kit.api('POST', path(), { url: 'not a url' })).body.code).toBe('webhook_url_invalid');
    expect((await kit.api('POST', path(), { url: 'ftp://127.0.0.1/' })).body.code).toBe('webhook_url_refused');
    expect((await kit.api('POST', path(), { url: 'http://127.0.0.1:9/', extra: 1 })).status).toBe(400);

    const created = await kit.api('POST', path(), { url: 'http://127.0.0.1:9/a' });
    const other = await createTestProject(kit.services, { name: 'Other' });
    const otherKey = (await kit.services.keys.create({ projectId: other.id })).key;
    const foreign = await kit.app.inject({
      method: 'GET',
      url: `/v1/projects/${other.id}/webhooks/${created.body.webhook.id}`,
      headers: { authorization: `Bearer ${otherKey}` },
    });
    expect(foreign.statusCode).toBe(404);
    const crossed = await kit.app.inject({ method: 'GET', url: path(), headers: { authorization: `Bearer ${otherKey}` } });
    expect(crossed.statusCode).toBe(404);
    expect((await kit.app.inject({ method: 'GET', url: path() })).statusCode).toBe(401);
  });

  test('at most 20 endpoints per project', async () => {
    kit = await createWebhookKit(dialect);
    for (let index = 0; index < 20; index += 1) expect((await kit.api('POST', path(), { url: `http://127.0.0.1:9/${index}` })).status).toBe(201);
    const refused = await kit.api('POST', path(), { url: 'http://127.0.0.1:9/more' });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('webhook_limit_reached');
  });

  test('deleting the project removes its endpoints, messages and attempts', async () => {
    kit = await createWebhookKit(dialect);
    await kit.api('POST', path(), { url: 'http://127.0.0.1:9/a' });
    await kit.archivedJob();
    await kit.worker.deliverDue();
    const project = await kit.services.projects.get(kit.projectId);
    await kit.services.projectDeletion.delete(kit.projectId, project.name);
    const { db } = kit.services.database;
    for (const table of ['webhook_endpoints', 'webhook_messages', 'webhook_attempts'] as const) {
      expect(await db.selectFrom(table).selectAll().execute()).toEqual([]);
    }
  });
});

describe('webhook routes in the OpenAPI document', () => {
  let kit: WebhookKit;
  afterEach(async () => kit?.close());

  test('every webhook operation has an operationId and documents its problems', async () => {
    kit = await createWebhookKit('sqlite');
    const document = (await kit.app.inject({ method: 'GET', url: '/openapi.json' })).json<{
      paths: Record<string, Record<string, { operationId?: string; responses: Record<string, unknown> }>>;
    }>();
    const operations = Object.entries(document.paths)
      .filter(([route]) => route.includes('/webhooks'))
      .flatMap(([, methods]) => Object.values(methods));
    expect(operations.map((operation) => operation.operationId).sort()).toEqual([
      'createWebhook',
      'deleteWebhook',
      'getWebhook',
      'getWebhookDelivery',
      'listWebhookDeliveries',
      'listWebhooks',
      'redeliverWebhook',
      'rotateWebhookSecret',
      'updateWebhook',
    ]);
    for (const operation of operations) expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['401', '404']));
  });
});
