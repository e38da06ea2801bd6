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
      next: '2 more matching paths are not listed; list them with offset 2, or narrow the pattern (e.g. "guides/**/*.mdx").',
    });
    expect(await listFiles(context, { pattern: '**/*.md*', offset: 2 })).toEqual({ files: ['docs/b.mdx', 'docs/guides/deep.mdx'], total: 4, truncated: false });
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
  test('returns the lines numbered as cat -n does, and the line count', async () => {
    await fixture.put('docs/page.mdx', '---\ntitle: Page\n---\n\n# Page\n');
    expect(await readFile(context, { path: 'docs/page.mdx' })).toEqual({
      path: 'docs/page.mdx',
      content: '     1\t---\n     2\ttitle: Page\n     3\t---\n     4\t\n     5\t# Page',
      startLine: 1,
      endLine: 5,
      totalLines: 5,
      truncated: false,
    });
    await fixture.put('empty.md', '');
    expect(await readFile(context, { path: './empty.md' })).toMatchObject({ content: '', totalLines: 0 });
    await fixture.put('long.md', `${Array.from({ length: 123_456 }, (_, index) => `l${index + 1}`).join('\n')}\n`);
    const numbers = (await readFile(context, { path: 'long.md', startLine: 123_455 })).content.split('\n');
    expect(numbers).toEqual(['123455\tl123455', '123456\tl123456']);
  });

  test('returns a line range and clamps its end', async () => {
    await fixture.put('lines.md', 'one\ntwo\nthree\nfour\n');
    expect(await readFile(context, { path: 'lines.md', startLine: 2, endLine: 3 })).toMatchObject({
      content: '     2\ttwo\n     3\tthree',
      startLine: 2,
      endLine: 3,
      totalLines: 4,
    });
    expect(await readFile(context, { path: 'lines.md', startLine: 4, endLine: 99 })).toMatchObject({ content: '     4\tfour', endLine: 4 });
    expect(await failure(readFile(context, { path: 'lines.md', startLine: 5 }))).toMatch(/only 4 lines/);
    expect(await failure(readFile(context, { path: 'lines.md', startLine: 3, endLine: 2 }))).toMatch(/endLine/);
    expect(await failure(readFile(context, { path: 'lines.md', startLine: 0 }))).toMatch(/startLine/);
  });

  test('reads from line 1 up to the result cap, large files too, and says where to read on', async () => {
    await fixture.put('big.md', 'line-0001\nline-0002\nline-0003\nline-0004\n');
    // Each line is 19 bytes of JSON ("     1\\tline-0001" and its "\\n"); 400 bytes and twice the path's are the other fields'.
    for (const maxReadBytes of [1024, 20]) {
      const small = createToolContext({ workspace: fixture.workspace, limits: { maxReadBytes, maxResultBytes: 416 + 40 } });
      expect(await readFile(small, { path: 'big.md' })).toEqual({
        path: 'big.md',
        content: '     1\tline-0001\n     2\tline-0002',
        startLine: 1,
        endLine: 2,
        totalLines: 4,
        truncated: true,
        next: 'Lines 3–4 did not fit in one result; read on with read_file startLine 3.',
      });
      expect(await readFile(small, { path: 'big.md', startLine: 3, endLine: 3 })).toMatchObject({ content: '     3\tline-0003', truncated: false });
      await small.workers.close();
    }
    const tiny = createToolContext({ workspace: fixture.workspace, limits: { maxReadBytes: 20, maxFileBytes: 30 } });
    expect(await failure(readFile(tiny, { path: 'big.md', startLine: 1 }))).toMatch(/above the limit of 30 bytes/);
  });

  test('a line too long for one result is cut, and the result still fits', async () => {
    await fixture.put('minified.json', `${'"é\t'.repeat(20_000)}\nsecond\n`);
    const result = await readFile(context, { path: 'minified.json' });
    expect(Buffer.byteLength(JSON.stringify(result))).toBeLessThanOrEqual(context.limits.maxResultBytes);
    expect(Buffer.byteLength(JSON.stringify(result))).toBeGreaterThan(context.limits.maxResultBytes - 1000);
    expect(result).toMatchObject({ startLine: 1, endLine: 1, totalLines: 2, truncated: true, next: expect.stringMatching(/^Line 1 is too long.*startLine 2/) });
    expect(result.content.startsWith('     1\t"é\t"é')).toBe(true);
  });

  test('following "next" reads a large page whole, each part within the cap', async () => {
    const lines = Array.from({ length: 6000 }, (_, index) => `| \`field_${index}\` | string | The "value" of field ${index}, described\tin a table. |`);
    const text = `${lines.join('\n')}\n`;
    await fixture.put('reference.mdx', text);
    const read: string[] = [];
    let startLine: number | undefined;
    let calls = 0;
    for (;;) {
      const part = await readFile(context, { path: 'reference.mdx', ...(startLine === undefined ? {} : { startLine }) });
      calls += 1;
      expect(Buffer.byteLength(JSON.stringify(part))).toBeLessThanOrEqual(32 * 1024);
      // The numbers are not part of the file: without them the parts are the file's lines.
      read.push(...part.content.split('\n').map((line) => line.replace(/^ *\d+\t/, '')));
      if (!part.truncated) break;
      startLine = part.endLine + 1;
      expect(part.next).toContain(`startLine ${startLine}`);
    }
    expect(`${read.join('\n')}\n`).toBe(text);
    expect(calls).toBeGreaterThan(10);
    await context.workers.close();
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

  test('reads through no symbolic link, naming the target when it is inside the workspace', async () => {
    await fixture.put('docs/v2.md', 'version two');
    await fixture.link('latest.md', 'docs/v2.md');
    await fixture.link('versions', 'docs');
    await fixture.link('escape.md', `${fixture.outside}/secret.txt`);
    await fixture.link('head', '.git/config');
    expect(await failure(readFile(context, { path: 'latest.md' }))).toMatch(/latest\.md is a symbolic link to docs\/v2\.md; .* use docs\/v2\.md instead/);
    expect(await failure(readFile(context, { path: 'versions/v2.md' }))).toMatch(/versions is a symbolic link to docs; .* use docs instead/);
    expect(await failure(readFile(context, { path: 'escape.md' }))).toMatch(/outside the workspace/);
    expect(await failure(readFile(context, { path: 'head' }))).toMatch(/\.git/);
    expect(await failure(readFile(context, { path: '.git/config' }))).toMatch(/\.git/);
  });
});
