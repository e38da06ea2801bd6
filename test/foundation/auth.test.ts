import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { BACKENDS } from '../helpers/test-database.js';
import { createTestApp, createTestProject, type TestApp } from '../helpers/test-app.js';
import { generateApiKey } from '../../src/keys/api-key-format.js';
import { ApiKeyService, KEY_CACHE_MS } from '../../src/keys/api-key-service.js';

describe.each(BACKENDS)('authentication [%s]', (dialect) => {
  let t: TestApp;
  let projectId: string;
  let adminKey: string;

  beforeEach(async () => {
    t = await createTestApp(dialect);
    projectId = (await createTestProject(t.services)).id;
    adminKey = (await t.services.keys.create({ projectId, scope: 'admin' })).key;
  });
  afterEach(async () => t.close());

  const get = (authorization: string | undefined, id = projectId) =>
    t.app.inject({ method: 'GET', url: `/v1/projects/${id}`, headers: authorization === undefined ? {} : { authorization } });

  test('a valid admin key opens its own project', async () => {
    const response = await get(`Bearer ${adminKey}`);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ id: projectId, forge: 'local' });
  });

  test('every authentication failure gets the same 401 problem body', async () => {
    const revoked = await t.services.keys.create({ projectId });
    await t.services.keys.revoke(revoked.id);
    const expiring = await t.services.keys.create({ projectId, expiresAt: t.clock.now() + 1_000 });
    t.clock.advance(1_001);
    const wellFormedButUnknown = generateApiKey('admin');
    const badChecksum = adminKey.slice(0, -1) + (adminKey.endsWith('A') ? 'B' : 'A');
    const cases: Record<string, string | undefined> = {
      'no header': undefined,
      'not bearer': `Basic ${adminKey}`,
      garbage: 'Bearer hello',
      'bad checksum': `Bearer ${badChecksum}`,
      unknown: `Bearer ${wellFormedButUnknown}`,
      revoked: `Bearer ${revoked.key}`,
      expired: `Bearer ${expiring.key}`,
    };
    const bodies = new Set<string>();
    for (const [name, header] of Object.entries(cases)) {
      const response = await get(header);
      expect(response.statusCode, name).toBe(401);
      expect(response.headers['content-type'], name).toMatch(/^application\/problem\+json/);
      expect(response.headers['www-authenticate'], name).toBe('Bearer realm="docwright"');
      const { requestId, ...body } = response.json();
      expect(requestId).toBe(response.headers['x-request-id']);
      expect(body).toMatchObject({ status: 401, code: 'unauthorized', error: expect.any(String) });
      bodies.add(JSON.stringify(body));
    }
    expect(bodies.size).toBe(1);
  });

  test('a bad checksum is rejected without a database lookup', async () => {
    const badChecksum = adminKey.slice(0, -1) + (adminKey.endsWith('A') ? 'B' : 'A');
    await t.testDatabase.database.close();
    // With the store closed, any lookup would fail with a 500; an offline rejection still answers 401.
    expect((await get(`Bearer ${badChecksum}`)).statusCode).toBe(401);
    expect((await get('Bearer dw_admin_short')).statusCode).toBe(401);
    expect((await get(`Bearer ${adminKey}`)).statusCode).toBe(500);
    t.testDatabase = { ...t.testDatabase, close: async () => {} };
  });

  test("another project's key gets 404, the same as an unknown project", async () => {
    const other = await createTestProject(t.services, { name: 'Other' });
    const otherKey = (await t.services.keys.create({ projectId: other.id })).key;
    const foreign = await get(`Bearer ${otherKey}`);
    const unknown = await get(`Bearer ${adminKey}`, 'doesNotExist123');
    expect(foreign.statusCode).toBe(404);
    expect(unknown.statusCode).toBe(404);
    expect(foreign.json()).toMatchObject({ code: 'not_found', status: 404 });
    expect(foreign.headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  test('an ingest key is refused on admin routes', async () => {
    const ingest = await t.services.keys.create({ projectId, scope: 'ingest' });
    expect(ingest.key.startsWith('dw_ingest_')).toBe(true);
    const response = await get(`Bearer ${ingest.key}`);
    expect(response.statusCode).toBe(403);
    expect(response.json().code).toBe('forbidden');
  });

  test('lastUsedAt is written on use, at most once a minute', async () => {
    const created = await t.services.keys.create({ projectId });
    const lastUsed = async () => (await t.services.keys.list(projectId)).find((key) => key.id === created.id)!.lastUsedAt;
    expect(await lastUsed()).toBeNull();
    await get(`Bearer ${created.key}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const first = await lastUsed();
    expect(first).toBe(new Date(t.clock.now()).toISOString());
    t.clock.advance(30_000);
    await get(`Bearer ${created.key}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await lastUsed()).toBe(first);
    t.clock.advance(31_000);
    await get(`Bearer ${created.key}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await lastUsed()).toBe(new Date(t.clock.now()).toISOString());
  });

  test('verified keys are cached briefly: revocation is immediate here, within KEY_CACHE_MS elsewhere', async () => {
    const local = await t.services.keys.create({ projectId });
    expect((await get(`Bearer ${local.key}`)).statusCode).toBe(200);
    await t.services.keys.revoke(local.id);
    expect((await get(`Bearer ${local.key}`)).statusCode).toBe(401);

    const remote = await t.services.keys.create({ projectId });
    expect((await get(`Bearer ${remote.key}`)).statusCode).toBe(200);
    // Another process revokes it: this one trusts its cache for at most KEY_CACHE_MS.
    await new ApiKeyService(t.services.database.db, t.clock).revoke(remote.id);
    expect((await get(`Bearer ${remote.key}`)).statusCode).toBe(200);
    t.clock.advance(KEY_CACHE_MS);
    expect((await get(`Bearer ${remote.key}`)).statusCode).toBe(401);

    const expiring = await t.services.keys.create({ projectId, expiresAt: t.clock.now() + 1_000 });
    expect((await get(`Bearer ${expiring.key}`)).statusCode).toBe(200);
    t.clock.advance(1_000);
    expect((await get(`Bearer ${expiring.key}`)).statusCode).toBe(401);
  });

  test('only a hash of the key is stored', async () => {
    const rows = await t.services.database.db.selectFrom('api_keys').selectAll().execute();
    const dump = JSON.stringify(rows);
    expect(dump).not.toContain(adminKey);
    expect(dump).not.toContain(adminKey.slice(9, 39));
  });
});
