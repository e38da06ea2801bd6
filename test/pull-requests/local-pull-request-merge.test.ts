import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { Project } from '../../src/projects/project.js';
import { advanceBranch } from '../../src/git/advance-branch.js';
import { planMerge } from '../../src/git/merge-branch.js';
import { BACKENDS } from '../helpers/test-database.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { createDocsRepository, git, showFile } from '../helpers/docs-repository.js';
import { buildSignedInApp, signedIn } from '../helpers/signed-in-app.js';
import { pushPage } from './push-page.js';

const identity = { name: 'Docwright', email: 'docwright@docwright.invalid', at: Date.UTC(2026, 5, 1) };

describe.each(BACKENDS)('merging and closing local pull requests [%s]', (dialect) => {
  let t: TestApp;
  let app: FastifyInstance;
  let repository: string;
  let project: Project;

  beforeEach(async () => {
    t = await createTestApp(dialect, { DOCWRIGHT_PUBLIC_URL: 'http://docs.test' });
    app = await buildSignedInApp(t.services);
    repository = createDocsRepository();
    project = await t.services.projects.create({ name: 'Docs', repository, ref: 'main', forge: 'local', settings: {} });
  });
  afterEach(async () => {
    await app?.close();
    await t?.close();
  });

  const open = (head: string) =>
    t.services.forges.local.openOrUpdatePullRequest(
      { id: project.id, repository, ref: 'main', credentials: null },
      { base: 'main', head, title: 'Docs: Add a page', body: 'Asked.' },
    );
  /** A merge is pinned to the head the reviewer saw: here, the branch as it is now. */
  const act = (number: number, action: 'merge' | 'close', headers: Record<string, string> = signedIn()) =>
    app.inject({
      method: 'POST',
      url: `/v1/projects/${project.id}/pulls/${number}/${action}`,
      headers,
      ...(action === 'merge' ? { payload: { headCommit: git(repository, 'rev-parse', 'docwright/j1') } } : {}),
    });
  /** A job row whose branch is the pull request's head, as the job API would have made it. */
  const insertJob = async (id: string, status: string) =>
    t.services.database.db
      .insertInto('jobs')
      .values({
        id,
        project_id: project.id,
        status,
        model: 'm',
        repository,
        ref: 'main',
        branch: `docwright/${id}`,
        pr_number: 1,
        pr_link: 'http://docs.test/x',
        pr_status: 'open',
        error_code: null,
        error_message: null,
        created_at: 1,
        updated_at: 1,
        archived_at: null,
        input_tokens: 0,
        output_tokens: 0,
        cached_input_tokens: 0,
        cache_write_tokens: 0,
        unresolved_problems: 0,
        pull_request_options: null,
      })
      .execute();

  test('merge makes a merge commit on the base of the real repository, updates its checkout, and shows in the job', async () => {
    pushPage(repository, 'docwright/j1', '# New page\n');
    await open('docwright/j1');
    await insertJob('j1', 'completed');
    const baseBefore = git(repository, 'rev-parse', 'main');
    const headCommit = git(repository, 'rev-parse', 'docwright/j1');

    const merged = await act(1, 'merge');
    expect(merged.statusCode).toBe(200);
    expect(merged.headers['cache-control']).toBe('private, no-store');
    const body = merged.json();
    expect(body).toMatchObject({ status: 'merged', jobId: 'j1', files: [{ path: 'page.mdx', status: 'added' }] });
    expect(body.diff).toContain('+# New page');
    expect(body.mergeCommit).toBe(git(repository, 'rev-parse', 'main'));
    expect(git(repository, 'rev-list', '--parents', '-n', '1', 'main')).toBe(`${body.mergeCommit} ${baseBefore} ${headCommit}`);
    expect(git(repository, 'log', '-1', '--format=%an <%ae>%n%B', 'main')).toBe(
      'Docwright <docwright@docwright.invalid>\nMerge pull request #1 from docwright/j1\n\nDocs: Add a page\n\nMerged-by: reviewer@example.com',
    );
    expect(showFile(repository, 'main', 'page.mdx')).toBe('# New page');
    // main is checked out in this repository: its files and index moved with it.
    expect(readFileSync(join(repository, 'page.mdx'), 'utf8')).toBe('# New page\n');
    expect(git(repository, 'status', '--porcelain')).toBe('');

    const job = await t.services.jobRepository.get(project.id, 'j1');
    expect(job.prStatus).toBe('merged');
    // The view after the merge still shows what was merged.
    const token = (await t.services.database.db.selectFrom('local_pull_requests').select('share_token').executeTakeFirstOrThrow()).share_token;
    const after = (await app.inject({ method: 'GET', url: `/v1/projects/${project.id}/pulls/1?token=${token}` })).json();
    expect(after).toMatchObject({ status: 'merged', mergeCommit: body.mergeCommit });
    expect(after.diff).toContain('+# New page');

    for (const action of ['merge', 'close'] as const) {
      const again = await act(1, action);
      expect(again.statusCode).toBe(409);
      expect(again.json()).toMatchObject({ code: 'pull_request_merged' });
    }
    // The job's branch is part of the base now: a follow-up is refused, before any charge.
    const followUp = t.services.jobs.message(await t.services.projects.get(project.id), 'j1', 'More please');
    await expect(followUp).rejects.toMatchObject({ status: 409, code: 'pull_request_merged' });
    await expect(open('docwright/j1')).rejects.toMatchObject({ status: 409, code: 'pull_request_merged' });
  });

  test('a conflict answers 409 merge_conflict with the files, and leaves the base ref and working files as they were', async () => {
    pushPage(repository, 'docwright/j1', '# From the job\n', 'index.mdx');
    pushPage(repository, 'main', '# From someone else\n', 'index.mdx');
    await open('docwright/j1');
    const baseBefore = git(repository, 'rev-parse', 'main');
    const indexBefore = readFileSync(join(repository, 'index.mdx'), 'utf8');

    const refused = await act(1, 'merge');
    expect(refused.statusCode).toBe(409);
    expect(refused.json()).toMatchObject({ code: 'merge_conflict', errors: [{ path: 'index.mdx', message: 'merge conflict' }] });
    expect(git(repository, 'rev-parse', 'main')).toBe(baseBefore);
    expect(git(repository, 'rev-parse', '--abbrev-ref', 'HEAD')).toBe('main');
    expect(readFileSync(join(repository, 'index.mdx'), 'utf8')).toBe(indexBefore);
    expect(git(repository, 'status', '--porcelain')).toBe('');
    const pr = await t.services.forges.local.find(project.id, 1);
    expect(pr).toMatchObject({ state: 'open', mergeCommit: null });
  });

  test('a checked-out base with uncommitted changes is refused before anything moves', async () => {
    pushPage(repository, 'docwright/j1', '# New page\n');
    await open('docwright/j1');
    const baseBefore = git(repository, 'rev-parse', 'main');
    writeFileSync(join(repository, 'quickstart.mdx'), 'local edit\n');
    const refused = await act(1, 'merge');
    expect(refused.statusCode).toBe(409);
    expect(refused.json().code).toBe('base_checked_out_dirty');
    expect(git(repository, 'rev-parse', 'main')).toBe(baseBefore);
    expect(readFileSync(join(repository, 'quickstart.mdx'), 'utf8')).toBe('local edit\n');
  });

  test('a push to the base between planning and updating is not lost: the update refuses and the merge is planned again', async () => {
    pushPage(repository, 'docwright/j1', '# New page\n');
    git(repository, 'checkout', '-q', '--detach');
    const plan = await planMerge(repository, 'main', 'docwright/j1', 'Merge', identity);
    expect(plan.kind).toBe('merge');
    if (plan.kind !== 'merge') return;
    // Someone pushes to main meanwhile.
    git(repository, 'checkout', '-q', 'main');
    pushPage(repository, 'main', '# Pushed meanwhile\n', 'pushed.mdx');
    const pushed = git(repository, 'rev-parse', 'main');
    git(repository, 'checkout', '-q', '--detach');
    expect(await advanceBranch(repository, 'refs/heads/main', plan.baseCommit, plan.mergeCommit, 'test')).toBe('moved');
    expect(git(repository, 'rev-parse', 'main')).toBe(pushed);

    // Through the service, the merge is planned on the new base and keeps the push.
    await open('docwright/j1');
    expect((await act(1, 'merge')).statusCode).toBe(200);
    expect(git(repository, 'rev-parse', 'main^1')).toBe(pushed);
    expect(showFile(repository, 'main', 'pushed.mdx')).toBe('# Pushed meanwhile');
    expect(showFile(repository, 'main', 'page.mdx')).toBe('# New page');
  });

  test('close; then merge and close answer 409 pull_request_closed; a follow-up turn reopens it', async () => {
    pushPage(repository, 'docwright/j1', '# New page\n');
    await open('docwright/j1');
    await insertJob('j1', 'completed');
    const baseBefore = git(repository, 'rev-parse', 'main');
    const closed = await act(1, 'close');
    expect(closed.statusCode).toBe(200);
    expect(closed.json()).toMatchObject({ status: 'closed', mergeCommit: null });
    expect(git(repository, 'rev-parse', 'main')).toBe(baseBefore);
    expect((await t.services.jobRepository.get(project.id, 'j1')).prStatus).toBe('closed');
    for (const action of ['merge', 'close'] as const) {
      const again = await act(1, action);
      expect(again.statusCode).toBe(409);
      expect(again.json().code).toBe('pull_request_closed');
    }
    expect(await open('docwright/j1')).toMatchObject({ number: 1, created: false, status: 'open' });
    expect((await t.services.forges.local.find(project.id, 1))?.state).toBe('open');
  });

  test('while the job is active, merge and close answer 409 job_active', async () => {
    pushPage(repository, 'docwright/j1', '# New page\n');
    await open('docwright/j1');
    await insertJob('j1', 'active');
    for (const action of ['merge', 'close'] as const) {
      const refused = await act(1, action);
      expect(refused.statusCode).toBe(409);
      expect(refused.json().code).toBe('job_active');
    }
  });

  test('nobody signed in: 401 sign_in_required (the share token does not allow it); unknown pull request: 404', async () => {
    pushPage(repository, 'docwright/j1', '# New page\n');
    const pr = await open('docwright/j1');
    const token = new URL(pr.url).searchParams.get('token')!;
    for (const action of ['merge', 'close'] as const) {
      const refused = await app.inject({ method: 'POST', url: `/v1/projects/${project.id}/pulls/1/${action}?token=${token}` });
      expect(refused.statusCode).toBe(401);
      expect(refused.json().code).toBe('sign_in_required');
      expect((await act(7, action)).statusCode).toBe(404);
    }
    expect((await act(0, 'merge')).statusCode).toBe(400);
    expect((await t.services.forges.local.find(project.id, 1))?.state).toBe('open');
  });
});
