import { rmSync, writeFileSync } from 'node:fs';
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
import { pushOnto, pushPage } from './push-page.js';

const identity = { name: 'Docwright', email: 'docwright@docwright.invalid', at: Date.UTC(2026, 5, 1) };

describe.each(BACKENDS)('merges pinned to the reviewed head [%s]', (dialect) => {
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
  const view = () => app.inject({ method: 'GET', url: `/v1/projects/${project.id}/pulls/1`, headers: signedIn() });
  const merge = (payload?: { headCommit?: string }) =>
    app.inject({ method: 'POST', url: `/v1/projects/${project.id}/pulls/1/merge`, headers: signedIn(), ...(payload === undefined ? {} : { payload }) });

  test('two commits pushed after review: the reviewed head answers 409 head_moved and main stays; the new head merges', async () => {
    pushPage(repository, 'docwright/j1', '# Reviewed page\n');
    await open('docwright/j1');
    const seen = (await view()).json();
    expect(seen.headCommit).toBe(git(repository, 'rev-parse', 'docwright/j1'));
    expect(seen.diff).toContain('+# Reviewed page');

    // Two more commits reach the branch after the reviewer loaded the page.
    pushOnto(repository, 'docwright/j1', '# Reviewed page\n\nUnreviewed line.\n');
    const pushed = pushOnto(repository, 'docwright/j1', 'Second unreviewed line.\n', 'other.mdx');
    const mainBefore = git(repository, 'rev-parse', 'main');

    const refused = await merge({ headCommit: seen.headCommit });
    expect(refused.statusCode).toBe(409);
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(refused.json()).toMatchObject({ code: 'head_moved', status: 409 });
    expect(refused.json().detail).toContain('nothing was merged');
    expect(git(repository, 'rev-parse', 'main')).toBe(mainBefore);
    expect(git(repository, 'status', '--porcelain')).toBe('');
    expect(await t.services.forges.local.find(project.id, 1)).toMatchObject({ state: 'open', mergeCommit: null });

    // The view now names the new head and shows its lines.
    const current = (await view()).json();
    expect(current.headCommit).toBe(pushed);
    expect(current.diff).toContain('+Unreviewed line.');
    expect(current.files.map((file: { path: string }) => file.path).sort()).toEqual(['other.mdx', 'page.mdx']);

    const merged = await merge({ headCommit: current.headCommit });
    expect(merged.statusCode).toBe(200);
    expect(merged.json()).toMatchObject({ status: 'merged', headCommit: pushed });
    expect(git(repository, 'rev-list', '--parents', '-n', '1', 'main')).toBe(`${merged.json().mergeCommit} ${mainBefore} ${pushed}`);
    expect(showFile(repository, 'main', 'other.mdx')).toBe('Second unreviewed line.');
  });

  test('a merge without headCommit, or with one that is not a commit id, is a 400 naming the field; nothing moves', async () => {
    pushPage(repository, 'docwright/j1', '# New page\n');
    await open('docwright/j1');
    const mainBefore = git(repository, 'rev-parse', 'main');
    for (const payload of [undefined, {}, { headCommit: 'main' }, { headCommit: git(repository, 'rev-parse', '--short', 'docwright/j1') }]) {
      const refused = await merge(payload);
      expect(refused.statusCode, JSON.stringify(payload)).toBe(400);
      expect(refused.json(), JSON.stringify(payload)).toMatchObject({ code: 'validation_failed', errors: [{ path: 'headCommit' }] });
    }
    expect(git(repository, 'rev-parse', 'main')).toBe(mainBefore);
    expect((await t.services.forges.local.find(project.id, 1))?.state).toBe('open');
  });

  test('the base ref moves only in a git ref transaction that finds the head where it was reviewed', async () => {
    pushPage(repository, 'docwright/j1', '# New page\n');
    git(repository, 'checkout', '-q', '--detach');
    const plan = await planMerge(repository, 'main', 'docwright/j1', 'Merge', identity);
    if (plan.kind !== 'merge') throw new Error(`expected a merge plan, got ${plan.kind}`);
    const base = git(repository, 'rev-parse', 'main');
    const pinned = { ref: 'refs/heads/docwright/j1', commit: plan.headCommit };

    // A push in progress holds the head's ref lock (git's <ref>.lock file): the transaction cannot take it.
    const lock = join(repository, '.git', 'refs', 'heads', 'docwright', 'j1.lock');
    writeFileSync(lock, `${plan.headCommit}\n`);
    expect(await advanceBranch(repository, 'refs/heads/main', plan.baseCommit, plan.mergeCommit, 'test', pinned)).toBe('moved');
    rmSync(lock);
    expect(git(repository, 'rev-parse', 'main')).toBe(base);

    // The push landed between planning and publishing: refused, main unchanged.
    git(repository, 'checkout', '-q', 'main');
    pushOnto(repository, 'docwright/j1', '# New page\n\nPushed meanwhile.\n');
    git(repository, 'checkout', '-q', '--detach');
    expect(await advanceBranch(repository, 'refs/heads/main', plan.baseCommit, plan.mergeCommit, 'test', pinned)).toBe('moved');
    expect(git(repository, 'rev-parse', 'main')).toBe(base);

    // The head where it was planned: published.
    const replanned = await planMerge(repository, 'main', 'docwright/j1', 'Merge', identity);
    if (replanned.kind !== 'merge') throw new Error(`expected a merge plan, got ${replanned.kind}`);
    const repinned = { ref: 'refs/heads/docwright/j1', commit: replanned.headCommit };
    expect(await advanceBranch(repository, 'refs/heads/main', replanned.baseCommit, replanned.mergeCommit, 'test', repinned)).toBe('advanced');
    expect(git(repository, 'rev-parse', 'main')).toBe(replanned.mergeCommit);
  });
});
