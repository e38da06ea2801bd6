import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { BACKENDS } from '../helpers/test-database.js';
import { createTestApp, createTestProject, type TestApp } from '../helpers/test-app.js';
import { signedIn, type Browser } from '../helpers/browser.js';

describe.each(BACKENDS)('project management [%s]', (dialect) => {
  let t: TestApp;
  let admin: Browser;

  beforeEach(async () => {
    t = await createTestApp(dialect);
    admin = await signedIn(t.app, t.services, 'admin');
  });
  afterEach(async () => t.close());

  test('create: a local repository by absolute path, a GitHub one with a write-only token; bad input is a 400', async () => {
    const repository = mkdtempSync(join(tmpdir(), 'docwright-repo-'));
    execFileSync('git', ['init', '-q', '-b', 'main', repository]);
    const local = await admin.request({ method: 'POST', url: '/v1/projects', payload: { name: 'Local docs', repository } });
    expect(local.statusCode).toBe(201);
    expect(local.json()).toMatchObject({ name: 'Local docs', repository, forge: 'local', ref: 'main', hasForgeCredentials: false });

    t.clock.advance(1_000); // projects are listed oldest first
    const token = 'ghp_secretsecretsecret';
    const github = await admin.request({
      method: 'POST',
      url: '/v1/projects',
      payload: { name: 'Hosted', repository: 'https://github.com/acme/docs', ref: 'trunk', forgeToken: token, settings: { rateLimitPerHour: 5 } },
    });
    expect(github.statusCode).toBe(201);
    expect(github.json()).toMatchObject({ forge: 'github', ref: 'trunk', hasForgeCredentials: true, settings: { rateLimitPerHour: 5 } });
    expect(github.body).not.toContain(token);
    expect(await t.services.projects.credentials(github.json().id)).toEqual({ token });

    const bad = [
      { name: 'Relative', repository: 'docs' },
      { name: 'Not a repository', repository: tmpdir() },
      { name: '', repository },
      { name: 'Token on local', repository, forgeToken: 'abcdefghij' },
      { name: 'Bad ref', repository, ref: '-x' },
      { name: 'Bad setting', repository, settings: { rateLimitPerHour: 0 } },
      { name: 'Unknown field', repository, owner: 'me' },
    ];
    for (const payload of bad) {
      const response = await admin.request({ method: 'POST', url: '/v1/projects', payload });
      expect([response.statusCode, response.json().code], payload.name).toEqual([400, 'validation_failed']);
    }
    expect((await admin.request({ url: '/v1/projects' })).json().projects.map((project: { name: string }) => project.name)).toEqual(['Local docs', 'Hosted']);
  });

  test('patch: name, ref, settings (null removes one) and the forge token (null removes it)', async () => {
    const project = await createTestProject(t.services, { forge: 'github', repository: 'https://github.com/acme/docs' });
    await t.services.projects.update(project.id, { settings: { model: 'openai:gpt-5', rateLimitPerHour: 10 } });
    const patch = (payload: unknown) => admin.request({ method: 'PATCH', url: `/v1/projects/${project.id}`, payload });

    const renamed = await patch({
      name: 'Renamed',
      ref: 'release/2.0',
      settings: { rateLimitPerHour: null, allowedOrigins: ['https://docs.acme.dev'], writePolicy: { deny: ['drafts/**'] } },
    });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json()).toMatchObject({ name: 'Renamed', ref: 'release/2.0', hasForgeCredentials: false });
    expect(renamed.json().settings).toEqual({ model: 'openai:gpt-5', allowedOrigins: ['https://docs.acme.dev'], writePolicy: { deny: ['drafts/**'] } });

    const withToken = await patch({ forgeToken: 'glpat-0123456789' });
    expect(withToken.json().hasForgeCredentials).toBe(true);
    expect(withToken.body).not.toContain('glpat-0123456789');
    expect(await t.services.projects.credentials(project.id)).toEqual({ token: 'glpat-0123456789' });
    expect((await patch({ forgeToken: null })).json().hasForgeCredentials).toBe(false);

    for (const payload of [
      { ref: 'a..b' },
      { name: ' ' },
      { settings: { model: 'gpt' } },
      { settings: { unknown: 1 } },
      { forgeToken: 'has space here' },
      { repository: '/elsewhere' },
    ]) {
      const response = await patch(payload);
      expect([response.statusCode, response.json().code], JSON.stringify(payload)).toEqual([400, 'validation_failed']);
    }
    expect((await admin.request({ method: 'PATCH', url: '/v1/projects/NoSuchProject000000000', payload: { name: 'y' } })).statusCode).toBe(404);
  });

  test('delete: a wrong confirmName deletes nothing; the right one removes jobs, keys, rows and workspaces, and runs the data removers first', async () => {
    const project = await createTestProject(t.services, { name: 'Doomed' });
    const kept = await createTestProject(t.services, { name: 'Kept' });
    const key = await t.services.keys.create({ projectId: project.id });
    const keptKey = await t.services.keys.create({ projectId: kept.id });
    const { job } = await t.services.jobs.create(project, 'Write the changelog');
    const { job: keptJob } = await t.services.jobs.create(kept, 'Keep me');
    const idempotent = await t.app.inject({
      method: 'POST',
      url: `/v2/agent/${project.id}/job`,
      headers: { authorization: `Bearer ${key.key}`, 'idempotency-key': 'abc' },
      payload: { prompt: 'Another' },
    });
    expect(idempotent.statusCode).toBe(201);
    const workspaces = join(t.config.dataDir, 'workspaces');
    const doomedWorkspace = join(workspaces, `${job.id}-1-abcdef`);
    const keptWorkspace = join(workspaces, `${keptJob.id}-1-ghijkl`);
    for (const directory of [doomedWorkspace, keptWorkspace]) {
      mkdirSync(join(directory, 'docs'), { recursive: true });
      writeFileSync(join(directory, 'docs', 'index.mdx'), '# Hi\n');
    }
    const events = await t.app.inject({
      method: 'POST',
      url: `/v1/analytics/${project.id}/events`,
      headers: { authorization: `Bearer ${key.key}` },
      payload: { events: [{ path: '/a', visitorId: 'v1', userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Firefox/140.0' }] },
    });
    expect(events.statusCode).toBe(202);
    const site = (await t.services.database.db.selectFrom('analytics_sites').select('site').where('project_id', '=', project.id).executeTakeFirstOrThrow())
      .site;
    // The page's dictionary row stands for the project's analytics rows (their layout differs per backend).
    const analyticsRows = async () => (await t.services.database.db.selectFrom('analytics_dimensions').select('id').where('site', '=', site).execute()).length;
    expect(await analyticsRows()).toBeGreaterThan(0);
    const removed: Array<{ projectId: string; stillThere: boolean }> = [];
    t.services.projectDataRemovers.push(async (projectId) => {
      removed.push({ projectId, stillThere: (await t.services.projects.find(projectId)) !== null });
    });

    const wrong = await admin.request({ method: 'DELETE', url: `/v1/projects/${project.id}`, payload: { confirmName: 'doomed' } });
    expect([wrong.statusCode, wrong.json().code]).toEqual([400, 'confirmation_mismatch']);
    const missing = await admin.request({ method: 'DELETE', url: `/v1/projects/${project.id}`, payload: {} });
    expect(missing.statusCode).toBe(400);
    expect(removed).toEqual([]);
    expect(await t.services.projects.find(project.id)).not.toBeNull();

    const deleted = await admin.request({ method: 'DELETE', url: `/v1/projects/${project.id}`, payload: { confirmName: 'Doomed' } });
    expect(deleted.statusCode).toBe(204);
    expect(removed).toEqual([{ projectId: project.id, stillThere: true }]);

    const { db } = t.services.database;
    const count = async (table: 'jobs' | 'api_keys' | 'rate_limit_hits' | 'idempotency_keys', projectId: string) =>
      (await db.selectFrom(table).select('project_id').where('project_id', '=', projectId).execute()).length;
    const jobIds = [job.id, idempotent.json().id as string];
    for (const table of ['jobs', 'api_keys', 'rate_limit_hits', 'idempotency_keys'] as const) expect(await count(table, project.id), table).toBe(0);
    for (const table of ['job_turns', 'job_events', 'job_queue'] as const) {
      expect((await db.selectFrom(table).select('job_id').where('job_id', 'in', jobIds).execute()).length, table).toBe(0);
    }
    expect(existsSync(doomedWorkspace)).toBe(false);
    expect(await analyticsRows()).toBe(0);
    expect(await t.services.database.db.selectFrom('analytics_sites').select('site').where('site', '=', site).executeTakeFirst()).toBeUndefined();
    expect(await t.services.projects.find(project.id)).toBeNull();

    // The other project keeps everything.
    expect(await count('jobs', kept.id)).toBe(1);
    expect(await count('api_keys', kept.id)).toBe(1);
    expect(existsSync(keptWorkspace)).toBe(true);
    expect((await t.app.inject({ url: `/v1/projects/${kept.id}`, headers: { authorization: `Bearer ${keptKey.key}` } })).statusCode).toBe(200);

    // Its key is gone with it, and its id is a 404 for users.
    expect((await t.app.inject({ url: `/v1/projects/${project.id}`, headers: { authorization: `Bearer ${key.key}` } })).statusCode).toBe(401);
    expect((await admin.request({ url: `/v2/agent/${project.id}/jobs` })).statusCode).toBe(404);
    expect((await admin.request({ method: 'DELETE', url: `/v1/projects/${project.id}`, payload: { confirmName: 'Doomed' } })).statusCode).toBe(404);
  });
});
