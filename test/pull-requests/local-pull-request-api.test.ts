import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { createLogger } from '../../src/app/logger.js';
import type { Project } from '../../src/projects/project.js';
import { BACKENDS } from '../helpers/test-database.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';
import { createDocsRepository, git } from '../helpers/docs-repository.js';
import { buildSignedInApp, signedIn } from '../helpers/signed-in-app.js';
import { pushPage } from './push-page.js';

const pathOf = (url: string): string => {
  const parsed = new URL(url);
  return `/v1${parsed.pathname}${parsed.search}`;
};

describe.each(BACKENDS)('local pull request API [%s]', (dialect) => {
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

  const open = (head: string, title = 'Docs: Add a page', body = 'What was asked.') =>
    t.services.forges.local.openOrUpdatePullRequest({ id: project.id, repository, ref: 'main', credentials: null }, { base: 'main', head, title, body });
  const view = (url: string, headers: Record<string, string> = {}, remoteAddress = '198.51.100.1') =>
    app.inject({ method: 'GET', url, headers, remoteAddress });

  test('the token opens the JSON view; without it, with a wrong one or another pull request’s, the answer is the unknown 404', async () => {
    pushPage(repository, 'docwright/job-1', '# First line\n');
    const pr = await open('docwright/job-1', 'Docs: Add a page', '### Instruction\n\nAdd **a page**.');
    expect(pr.url).toMatch(new RegExp(`^http://docs\\.test/projects/${project.id}/pulls/1\\?token=[A-Za-z0-9_-]{32}$`));
    const token = new URL(pr.url).searchParams.get('token')!;

    const page = await view(pathOf(pr.url));
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toMatch(/^application\/json/);
    expect(page.headers).toMatchObject({ 'cache-control': 'private, no-store', 'referrer-policy': 'no-referrer', 'x-robots-tag': 'noindex, nofollow' });
    const body = page.json();
    expect(Object.keys(body).sort()).toEqual(
      [
        'base',
        'body',
        'bodyHtml',
        'createdAt',
        'diff',
        'diffAvailable',
        'diffTruncated',
        'files',
        'filesTruncated',
        'head',
        'headCommit',
        'jobId',
        'mergeCommit',
        'number',
        'status',
        'title',
        'updatedAt',
      ].sort(),
    );
    expect(body).toMatchObject({
      number: 1,
      title: 'Docs: Add a page',
      status: 'open',
      base: 'main',
      head: 'docwright/job-1',
      headCommit: git(repository, 'rev-parse', 'docwright/job-1'),
      jobId: null,
      mergeCommit: null,
      diffTruncated: false,
      diffAvailable: true,
      files: [{ path: 'page.mdx', status: 'added', additions: 1, deletions: 0, binary: false }],
    });
    expect(body.bodyHtml).toBe('<h3>Instruction</h3>\n<p>Add <strong>a page</strong>.</p>');
    expect(body.diff).toContain('+# First line');
    expect(page.body).not.toContain(token);

    pushPage(repository, 'docwright/job-2', '# Other\n');
    const other = await open('docwright/job-2');
    const otherToken = new URL(other.url).searchParams.get('token')!;
    expect(otherToken).not.toBe(token);

    const base = `/v1/projects/${project.id}/pulls`;
    const sameId = { 'x-request-id': 'probe-1' };
    const unknown = await view(`${base}/99?token=${token}`, sameId);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(unknown.headers['cache-control']).toBe('private, no-store');
    const unknownNumberOne = await view(`/v1/projects/no-such-project/pulls/1?token=${token}`, sameId);
    expect(unknownNumberOne.statusCode).toBe(404);
    const wrongToken = `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`;
    for (const url of [
      `${base}/1`,
      `${base}/1?token=`,
      `${base}/1?token=${wrongToken}`,
      `${base}/1?token=${otherToken}`,
      `${base}/1?token=${token}x`,
      `${base}/1?tok=${token}`,
    ]) {
      const denied = await view(url, sameId);
      expect(denied.statusCode, url).toBe(404);
      // Same request id, same number: the body is an unknown pull request's, byte for byte.
      expect(denied.body, url).toBe(unknownNumberOne.body);
      expect(denied.body.replaceAll('#1 ', '#99 '), url).toBe(unknown.body);
    }
    expect((await view(pathOf(other.url))).json().diff).toContain('+# Other');

    // A signed-in user needs no token; the old HTML page is gone (the dashboard serves that path).
    const asUser = await view(`${base}/1`, signedIn());
    expect(asUser.statusCode).toBe(200);
    expect(asUser.json().title).toBe('Docs: Add a page');
    // The link's path is the dashboard's page now: the app shell, which renders the pull request from the JSON above.
    const shell = await view(`/projects/${project.id}/pulls/1?token=${token}`);
    expect(shell.statusCode).toBe(200);
    expect(shell.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(shell.body).toContain('<div id="app"></div>');
    expect(shell.body).not.toContain('Add a page');
  });

  test('the description is rendered as sanitised Markdown: no script, no raw HTML, no javascript: links, no images', async () => {
    pushPage(repository, 'docwright/job-1', '# Page\n');
    const hostile = [
      '# Title',
      '<script>alert(1)</script>',
      '<img src=x onerror="alert(1)">',
      '<a href="javascript:alert(1)">raw link</a>',
      '[click](javascript:alert(1)) [data](data:text/html;base64,PHNjcmlwdD4=) [entity](java&#x73;cript:alert(1)) <javascript:alert(1)>',
      '![tracker](https://evil.test/pixel.png?leak=1) ![ref][pic]',
      '[pic]: https://evil.test/ref.png',
      '<iframe src="https://evil.test"></iframe> <style>body{display:none}</style>',
      '| a | b |\n|---|---|\n| [ok](https://example.com/docs) | ~~gone~~ |',
    ].join('\n\n');
    const pr = await open('docwright/job-1', 'Docs: Hostile', hostile);
    const { bodyHtml, body } = (await view(pathOf(pr.url))).json();
    expect(body).toBe(hostile);
    expect(bodyHtml).not.toMatch(/<(script|img|iframe|style|a href="javascript)/i);
    expect(bodyHtml).not.toMatch(/href="(javascript|data):/i);
    expect(bodyHtml).not.toContain('onerror="');
    expect(bodyHtml).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(bodyHtml).toContain('<a href="">click</a>');
    expect(bodyHtml).toContain('<a href="">data</a>');
    // Images are plain links: nothing loads until someone clicks.
    expect(bodyHtml).toContain('!<a href="https://evil.test/pixel.png?leak=1">tracker</a>');
    expect(bodyHtml).toContain('!<a href="https://evil.test/ref.png">ref</a>');
    expect(bodyHtml).toContain('<td><a href="https://example.com/docs">ok</a></td>');
    expect(bodyHtml).toContain('<del>gone</del>');
  });

  test('a follow-up keeps the link; a second view comes from the cache; a push makes a new diff', async () => {
    pushPage(repository, 'docwright/job-1', '# Version one\n');
    const pr = await open('docwright/job-1');
    const diffs = t.services.pullRequests.diffs;
    expect(diffs.computed).toBe(0);
    const first = await view(pathOf(pr.url));
    expect(first.json().diff).toContain('+# Version one');
    expect(diffs.computed).toBe(1);
    const second = await view(pathOf(pr.url));
    expect(second.body).toBe(first.body);
    expect(diffs.computed).toBe(1);

    pushPage(repository, 'docwright/job-1', '# Version two\n');
    const again = await open('docwright/job-1', 'Docs: Add a page, take two');
    expect(again).toEqual({ number: 1, created: false, url: pr.url, status: 'open' });
    const third = (await view(pathOf(pr.url))).json();
    expect(third.diff).toContain('+# Version two');
    expect(third.diff).not.toContain('Version one');
    expect(third.title).toContain('take two');
    expect(diffs.computed).toBe(2);

    // The base moving on changes the diff too (base...head from their merge base).
    pushPage(repository, 'main', '# Main moved\n', 'other.mdx');
    await view(pathOf(pr.url));
    expect(diffs.computed).toBe(3);
  });

  test('a deleted branch still shows the description, with diffAvailable false', async () => {
    pushPage(repository, 'docwright/job-1', '# Page\n');
    const pr = await open('docwright/job-1');
    git(repository, 'branch', '-D', 'docwright/job-1');
    const body = (await view(pathOf(pr.url))).json();
    expect(body).toMatchObject({ status: 'open', diff: '', files: [], diffAvailable: false });
  });

  test('60 reads a minute per address, then 429 with Retry-After; other addresses are not affected', async () => {
    pushPage(repository, 'docwright/job-1', '# Page\n');
    const pr = await open('docwright/job-1');
    const attacker = '203.0.113.7';
    for (let index = 1; index <= 60; index += 1) {
      expect((await view(`/v1/projects/${project.id}/pulls/${100 + index}?token=guess${index}`, {}, attacker)).statusCode).toBe(404);
    }
    const limited = await view(pathOf(pr.url), {}, attacker);
    expect(limited.statusCode).toBe(429);
    expect(limited.headers['retry-after']).toBe('60');
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
    const logging = await buildSignedInApp(t.services, createLogger({ level: 'info', destination }));
    try {
      expect((await logging.inject({ method: 'GET', url: pathOf(pr.url) })).statusCode).toBe(200);
    } finally {
      await logging.close();
    }
    expect(logged).toContain(`/v1/projects/${project.id}/pulls/1?token=[REDACTED]`);
    expect(logged).not.toContain(token);
  });
});
