import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { createToolContext, listFiles, readFile, searchFiles, ToolFailure, type ToolContext } from '../../../src/agent/tools/index.js';
import { createTemporaryWorkspace, type TemporaryWorkspace } from './temporary-workspace.js';

let fixture: TemporaryWorkspace;
let context: ToolContext;

beforeEach(async () => {
  fixture = await createTemporaryWorkspace();
  context = createToolContext({ workspace: fixture.workspace });
});

afterEach(async () => {
  await fixture.remove();
});

async function failure(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ToolFailure);
  expect((error as ToolFailure).code).toBe('tool_error');
  return (error as ToolFailure).message;
}

describe('list_files', () => {
  beforeEach(async () => {
    await fixture.put('docs/b.mdx', 'b');
    await fixture.put('docs/a.md', 'a');
    await fixture.put('docs/guides/deep.mdx', 'deep');
    await fixture.put('.github/workflows/ci.yml', 'on: push');
    await fixture.put('README.md', 'readme');
    await fixture.put('sub/.git/HEAD', 'ref: refs/heads/main');
    await fixture.put('sub/.GIT/HEAD', 'ref: refs/heads/main');
    await fixture.link('outlink', fixture.outside);
  });

  test('lists every file sorted, with dot directories but never .git or linked directories', async () => {
    expect(await listFiles(context, {})).toEqual({
      files: ['.github/workflows/ci.yml', 'README.md', 'docs/a.md', 'docs/b.mdx', 'docs/guides/deep.mdx'],
      total: 5,
      truncated: false,
    });
  });

  test('filters by glob and caps the result', async () => {
    expect((await listFiles(context, { pattern: 'docs/**/*.mdx' })).files).toEqual(['docs/b.mdx', 'docs/guides/deep.mdx']);
    expect(await listFiles(context, { pattern: '**/*.md*', limit: 2 })).toEqual({
      files: ['README.md', 'docs/a.md'],
      total: 4,
      truncated: true,
    });
    const capped = createToolContext({ workspace: fixture.workspace, limits: { maxListResults: 1 } });
    expect(await listFiles(capped, { limit: 50 })).toMatchObject({ files: ['.github/workflows/ci.yml'], truncated: true });
  });

  test('refuses patterns that leave the workspace or name .git', async () => {
    expect(await failure(listFiles(context, { pattern: '../**' }))).toMatch(/"\.\."/);
    expect(await failure(listFiles(context, { pattern: '/etc/*' }))).toMatch(/absolute/);
    expect(await failure(listFiles(context, { pattern: '.git/**' }))).toMatch(/\.git/);
    expect(await failure(listFiles(context, { pattern: 'sub/.GIT/*' }))).toMatch(/\.git/);
    expect(await failure(listFiles(context, { limit: 0 }))).toMatch(/limit/);
    // Brace expansion and literal prefixes through links are filtered from the results.
    expect((await listFiles(context, { pattern: '{.git,docs}/*' })).files).toEqual(['docs/a.md', 'docs/b.mdx']);
    expect((await listFiles(context, { pattern: 'outlink/secret.txt' })).files).toEqual([]);
  });
});

describe('read_file', () => {
  test('returns the exact text and the line count', async () => {
    await fixture.put('docs/page.mdx', '---\ntitle: Page\n---\n\n# Page\n');
    expect(await readFile(context, { path: 'docs/page.mdx' })).toEqual({
      path: 'docs/page.mdx',
      content: '---\ntitle: Page\n---\n\n# Page\n',
      startLine: 1,
      endLine: 5,
      totalLines: 5,
      truncated: false,
    });
    await fixture.put('empty.md', '');
    expect(await readFile(context, { path: './empty.md' })).toMatchObject({ content: '', totalLines: 0 });
  });

  test('returns a line range and clamps its end', async () => {
    await fixture.put('lines.md', 'one\ntwo\nthree\nfour\n');
    expect(await readFile(context, { path: 'lines.md', startLine: 2, endLine: 3 })).toMatchObject({
      content: 'two\nthree',
      startLine: 2,
      endLine: 3,
      totalLines: 4,
    });
    expect(await readFile(context, { path: 'lines.md', startLine: 4, endLine: 99 })).toMatchObject({ content: 'four', endLine: 4 });
    expect(await failure(readFile(context, { path: 'lines.md', startLine: 5 }))).toMatch(/only 4 lines/);
    expect(await failure(readFile(context, { path: 'lines.md', startLine: 3, endLine: 2 }))).toMatch(/endLine/);
    expect(await failure(readFile(context, { path: 'lines.md', startLine: 0 }))).toMatch(/startLine/);
  });

  test('requires a line range above the read limit and cuts long ranges', async () => {
    const small = createToolContext({ workspace: fixture.workspace, limits: { maxReadBytes: 20 } });
    await fixture.put('big.md', 'line-0001\nline-0002\nline-0003\nline-0004\n');
    expect(await failure(readFile(small, { path: 'big.md' }))).toMatch(/40 bytes.*startLine and endLine/);
    expect(await readFile(small, { path: 'big.md', startLine: 1, endLine: 4 })).toMatchObject({
      content: 'line-0001\nline-0002',
      endLine: 2,
      truncated: true,
    });
    const tiny = createToolContext({ workspace: fixture.workspace, limits: { maxReadBytes: 20, maxFileBytes: 30 } });
    expect(await failure(readFile(tiny, { path: 'big.md', startLine: 1 }))).toMatch(/above the limit of 30 bytes/);
  });

  test('refuses binary files, directories and missing files', async () => {
    await fixture.put('logo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x01]));
    await fixture.put('latin1.txt', Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    await fixture.put('docs/x.md', 'x');
    expect(await failure(readFile(context, { path: 'logo.png' }))).toMatch(/binary/);
    expect(await failure(readFile(context, { path: 'latin1.txt' }))).toMatch(/binary/);
    expect(await failure(readFile(context, { path: 'docs' }))).toMatch(/directory/);
    expect(await failure(readFile(context, { path: 'docs/missing.md' }))).toMatch(/does not exist/);
  });

  test('refuses special files such as a FIFO without blocking on them', async () => {
    await fixture.put('docs/real.md', 'pipe dreams');
    execFileSync('mkfifo', [path.join(fixture.workspace, 'docs', 'pipe.md')]);
    expect(await failure(readFile(context, { path: 'docs/pipe.md' }))).toMatch(/not a regular file/);
    expect((await listFiles(context, {})).files).toEqual(['docs/real.md']);
    expect((await searchFiles(context, { query: 'pipe' })).matches).toEqual([{ path: 'docs/real.md', line: 1, text: 'pipe dreams' }]);
  });

  test('reads through links inside the workspace but not out of it or into .git', async () => {
    await fixture.put('docs/v2.md', 'version two');
    await fixture.link('latest.md', 'docs/v2.md');
    await fixture.link('escape.md', `${fixture.outside}/secret.txt`);
    await fixture.link('head', '.git/config');
    expect(await readFile(context, { path: 'latest.md' })).toMatchObject({ path: 'docs/v2.md', content: 'version two' });
    expect(await failure(readFile(context, { path: 'escape.md' }))).toMatch(/outside the workspace/);
    expect(await failure(readFile(context, { path: 'head' }))).toMatch(/\.git/);
    expect(await failure(readFile(context, { path: '.git/config' }))).toMatch(/\.git/);
  });
});
