import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { BACKENDS } from '../helpers/test-database.js';
import { createTestApp, createTestProject, type TestApp } from '../helpers/test-app.js';
import { openSecondInstance, type SecondInstance } from '../helpers/second-instance.js';
import { signedIn, type Browser } from '../helpers/browser.js';
import type { Project } from '../../src/projects/project.js';

describe.each(BACKENDS)('API keys from the dashboard [%s]', (dialect) => {
  let t: TestApp;
  let other: SecondInstance;
  let admin: Browser;
  let project: Project;

  beforeEach(async () => {
    t = await createTestApp(dialect);
    other = await openSecondInstance(t);
    admin = await signedIn(t.app, t.services, 'admin');
    project = await createTestProject(t.services);
  });
  afterEach(async () => {
    await other.close();
    await t.close();
  });

  const keysUrl = () => `/v1/projects/${project.id}/keys`;
  const useKey = (app: TestApp['app'], key: string, projectId = project.id) =>
    app.inject({ url: `/v2/agent/${projectId}/jobs`, headers: { authorization: `Bearer ${key}` } });

  test('create shows the key once, list shows hints only, revoke answers 204', async () => {
    const created = await admin.request({ method: 'POST', url: keysUrl(), payload: { scope: 'ingest', name: 'CDN logs', expiresAt: '2027-01-01T00:00:00Z' } });
    expect(created.statusCode).toBe(201);
    expect(created.headers['cache-control']).toBe('no-store');
    const { key, secret } = created.json();
    expect(secret).toMatch(/^dw_ingest_[0-9A-Za-z]{36}$/);
    expect(key).toEqual({
      id: expect.any(String),
      projectId: project.id,
      scope: 'ingest',
      name: 'CDN logs',
      hint: `dw_ingest_…${secret.slice(-4)}`,
      createdAt: new Date(t.clock.now()).toISOString(),
      expiresAt: '2027-01-01T00:00:00.000Z',
      lastUsedAt: null,
      revokedAt: null,
    });
    const listed = await admin.request({ url: keysUrl() });
    expect(listed.json().keys).toEqual([key]);
    expect(listed.body).not.toContain(secret);

    for (const payload of [
      { scope: 'root', name: 'x' },
      { scope: 'admin' },
      { scope: 'admin', name: 'x', expiresAt: 'tomorrow' },
      { scope: 'admin', name: 'x', expiresAt: '2020-01-01T00:00:00Z' },
    ]) {
      const response = await admin.request({ method: 'POST', url: keysUrl(), payload });
      expect([response.statusCode, response.json().code], JSON.stringify(payload)).toEqual([400, 'validation_failed']);
    }
    const otherProject = await createTestProject(t.services, { name: 'Other' });
    expect((await admin.request({ method: 'DELETE', url: `/v1/projects/${otherProject.id}/keys/${key.id}` })).statusCode).toBe(404);
    expect((await admin.request({ method: 'POST', url: '/v1/projects/NoSuchProject000000000/keys', payload: { scope: 'admin', name: 'x' } })).statusCode).toBe(
      404,
    );

    expect((await admin.request({ method: 'DELETE', url: `${keysUrl()}/${key.id}` })).statusCode).toBe(204);
    expect((await admin.request({ url: keysUrl() })).json().keys[0].revokedAt).toBe(new Date(t.clock.now()).toISOString());
  });

  test('a revoked key is refused by another server process on its very next request', async () => {
    const { secret, key } = (await admin.request({ method: 'POST', url: keysUrl(), payload: { scope: 'admin', name: 'CI' } })).json();
    // The other process has verified (and cached) the key, and answers from its cache.
    for (let index = 0; index < 3; index += 1) expect((await useKey(other.app, secret)).statusCode).toBe(200);
    expect(other.services.keys.authenticateFromCache(secret)).toMatchObject({ kind: 'key', keyId: key.id });

    expect((await admin.request({ method: 'DELETE', url: `${keysUrl()}/${key.id}` })).statusCode).toBe(204);
    const refused = await useKey(other.app, secret);
    expect([refused.statusCode, refused.json().code]).toEqual([401, 'unauthorized']);
    expect((await useKey(t.app, secret)).statusCode).toBe(401);
  });

  test("a deleted project's keys are refused by another server process on its very next request", async () => {
    const { secret } = (await admin.request({ method: 'POST', url: keysUrl(), payload: { scope: 'admin', name: 'CI' } })).json();
    expect((await useKey(other.app, secret)).statusCode).toBe(200);
    expect((await admin.request({ method: 'DELETE', url: `/v1/projects/${project.id}`, payload: { confirmName: project.name } })).statusCode).toBe(204);
    expect((await useKey(other.app, secret)).statusCode).toBe(401);
  });

  test('with nothing changed, a verified key keeps answering from the cache without waiting for the store', async () => {
    const { secret } = (await admin.request({ method: 'POST', url: keysUrl(), payload: { scope: 'admin', name: 'poller' } })).json();
    expect((await useKey(other.app, secret)).statusCode).toBe(200);
    // Writes elsewhere (another project's key) do not evict it on SQLite: the key's row is re-checked in place.
    const elsewhere = await createTestProject(t.services, { name: 'Elsewhere' });
    await t.services.keys.create({ projectId: elsewhere.id });
    if (dialect === 'sqlite') expect(other.services.keys.authenticateFromCache(secret)).not.toBeUndefined();
    expect((await useKey(other.app, secret)).statusCode).toBe(200);
    expect(other.services.keys.authenticateFromCache(secret)).toMatchObject({ kind: 'key', projectId: project.id });
  });
});
