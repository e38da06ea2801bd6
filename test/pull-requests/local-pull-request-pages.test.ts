import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { buildApp } from '../../src/app/build-app.js';
import { createLogger } from '../../src/app/logger.js';
import { features } from '../../src/server/features.js';
import type { Project } from '../../src/projects/project.js';
import { BACKENDS } from '../helpers/test-database.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { createDocsRepository, git } from '../helpers/docs-repository.js';

/** Commits `text` as a new page on `branch` (created from main the first time) and returns to main. */
function pushPage(repository: string, branch: string, text: string): void {
  git(repository, 'checkout', '-q', branch === 'main' ? 'main' : '-B', ...(branch === 'main' ? [] : [branch]));
  writeFileSync(join(repository, 'page.mdx'), text);
  git(repository, 'add', '-A');
  git(repository, 'commit', '-q', '-m', `Write ${text.trim()}`);
  git(repository, 'checkout', '-q', 'main');
}

const pathOf = (url: string): string => {
  const parsed = new URL(url);
  return `${parsed.pathname}${parsed.search}`;
};

describe.each(BACKENDS)('local pull request pages [%s]', (dialect) => {
  let t: TestApp;
  let repository: string;
  let project: Project;

  beforeEach(async () => {
    t = await createTestApp(dialect, { DOCWRIGHT_PUBLIC_URL: 'http://docs.test' });
    repository = createDocsRepository();
    project = await t.services.projects.create({ name: 'Docs', repository, ref: 'main', forge: 'local', settings: {} });
  });
  afterEach(async () => t?.close());

  const open = (head: string, title = 'Docs: Add a page') =>
    t.services.forges.local.openOrUpdatePullRequest({ id: project.id, repository, ref: 'main', credentials: null }, { base: 'main', head, title, body: 'What was asked.' });
  const view = (url: string, headers: Record<string, string> = {}, remoteAddress = '198.51.100.1') => t.app.inject({ method: 'GET', url, headers, remoteAddress });

  test('the link opens the page; without its token, with a wrong one or another pull request’s, the answer is the unknown 404', async () => {
    pushPage(repository, 'docwright/job-1', '# First line\n');
    const pr = await open('docwright/job-1');
    expect(pr.url).toMatch(new RegExp(`^http://docs\\.test/projects/${project.id}/pulls/1\\?token=[A-Za-z0-9_-]{32}$`));
    const token = new URL(pr.url).searchParams.get('token')!;

    const page = await view(pathOf(pr.url));
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.body).toContain('Docs: Add a page');
    expect(page.body).toContain('+# First line');
    expect(page.body).not.toContain(token);
    expect(page.headers).toMatchObject({ 'cache-control': 'private, no-store', 'referrer-policy': 'no-referrer', 'x-robots-tag': 'noindex, nofollow' });

    pushPage(repository, 'docwright/job-2', '# Other\n');
    const other = await open('docwright/job-2');
    const otherToken = new URL(other.url).searchParams.get('token')!;
    expect(otherToken).not.toBe(token);

    const base = `/projects/${project.id}/pulls`;
    const sameId = { 'x-request-id': 'probe-1' };
    const unknown = await view(`${base}/99?token=${token}`, sameId);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.headers['content-type']).toMatch(/^application\/problem\+json/);
    const unknownNumberOne = await view(`/projects/no-such-project/pulls/1?token=${token}`, sameId);
    expect(unknownNumberOne.statusCode).toBe(404);
    const wrongToken = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    for (const url of [`${base}/1`, `${base}/1?token=`, `${base}/1?token=${wrongToken}`, `${base}/1?token=${token.toLowerCase() === token ? token.toUpperCase() : token.toLowerCase()}`, `${base}/1?token=${otherToken}`, `${base}/1?token=${token}x`, `${base}/1?tok=${token}`]) {
      const denied = await view(url, sameId);
      expect(denied.statusCode, url).toBe(404);
      expect(denied.headers['content-type'], url).toBe(unknown.headers['content-type']);
      // Same request id, same number: the body is an unknown pull request's, byte for byte.
      expect(denied.body, url).toBe(unknownNumberOne.body);
      expect(denied.body.replaceAll('#1 ', '#99 '), url).toBe(unknown.body);
    }
    expect((await view(pathOf(other.url))).body).toContain('+# Other');
  });

  test('a follow-up keeps the link; a second view comes from the cache; a push makes a new diff', async () => {
    pushPage(repository, 'docwright/job-1', '# Version one\n');
    const pr = await open('docwright/job-1');
    const diffs = t.services.pullRequestPages.diffs;
    expect(diffs.computed).toBe(0);
    const first = await view(pathOf(pr.url));
    expect(first.body).toContain('+# Version one');
    expect(diffs.computed).toBe(1);
    const second = await view(pathOf(pr.url));
    expect(second.body).toBe(first.body);
    expect(diffs.computed).toBe(1);

    pushPage(repository, 'docwright/job-1', '# Version two\n');
    const again = await open('docwright/job-1', 'Docs: Add a page, take two');
    expect(again).toEqual({ number: 1, created: false, url: pr.url });
    const third = await view(pathOf(pr.url));
    expect(third.body).toContain('+# Version two');
    expect(third.body).not.toContain('Version one');
    expect(third.body).toContain('take two');
    expect(diffs.computed).toBe(2);
    await view(pathOf(pr.url));
    expect(diffs.computed).toBe(2);

    // The base moving on changes the diff too (base...head from their merge base).
    pushPage(repository, 'main', '# Main moved\n');
    await view(pathOf(pr.url));
    expect(diffs.computed).toBe(3);
  });

  test('60 views a minute per address, then 429 with Retry-After; other addresses are not affected', async () => {
    pushPage(repository, 'docwright/job-1', '# Page\n');
    const pr = await open('docwright/job-1');
    const attacker = '203.0.113.7';
    for (let index = 1; index <= 60; index += 1) {
      expect((await view(`/projects/${project.id}/pulls/${100 + index}?token=guess${index}`, {}, attacker)).statusCode).toBe(404);
    }
    const limited = await view(pathOf(pr.url), {}, attacker);
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBe('60');
    expect(limited.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(limited.json()).toMatchObject({ status: 429, code: 'rate_limited' });
    expect((await view(pathOf(pr.url), {}, '203.0.113.8')).statusCode).toBe(200);

    t.clock.advance(45_000);
    expect((await view(pathOf(pr.url), {}, attacker)).headers['retry-after']).toBe('15');
    t.clock.advance(15_000);
    expect((await view(pathOf(pr.url), {}, attacker)).statusCode).toBe(200);
  });

  test('the token is not written to the request log', async () => {
    pushPage(repository, 'docwright/job-1', '# Page\n');
    const pr = await open('docwright/job-1');
    const token = new URL(pr.url).searchParams.get('token')!;
    let logged = '';
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logged += chunk.toString();
        done();
      },
    });
    const app = await buildApp({ services: t.services, logger: createLogger({ level: 'info', destination }), features });
    try {
      expect((await app.inject({ method: 'GET', url: pathOf(pr.url) })).statusCode).toBe(200);
    } finally {
      await app.close();
    }
    expect(logged).toContain(`/projects/${project.id}/pulls/1?token=[REDACTED]`);
    expect(logged).not.toContain(token);
  });
});
