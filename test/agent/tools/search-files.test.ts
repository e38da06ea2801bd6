import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { createToolContext, searchFiles, type ToolContext } from '../../../src/agent/tools/index.js';
import { createTemporaryWorkspace, type TemporaryWorkspace } from './temporary-workspace.js';
import { failure } from './tool-failure-message.js';

let fixture: TemporaryWorkspace;
let context: ToolContext;

beforeEach(async () => {
  fixture = await createTemporaryWorkspace();
  context = createToolContext({ workspace: fixture.workspace });
  await fixture.put('docs/install.mdx', '# Install\n\nRun `npm install docwright`.\r\nThen set API_KEY.\n');
  await fixture.put('docs/usage.md', 'Usage\n\nCall the api with your api key.\n');
  await fixture.put('docs/logo.png', Buffer.from([0x89, 0x00, 0x61, 0x70, 0x69]));
  await fixture.put('README.md', 'See docs/ (the API docs).\n');
});

afterEach(async () => {
  await fixture.remove();
});

describe('search', () => {
  test('finds literal text case-insensitively by default, skipping binary files', async () => {
    const result = await searchFiles(context, { query: 'api' });
    expect(result.matches).toEqual([
      { path: 'README.md', line: 1, text: 'See docs/ (the API docs).' },
      { path: 'docs/install.mdx', line: 4, text: 'Then set API_KEY.' },
      { path: 'docs/usage.md', line: 3, text: 'Call the api with your api key.' },
    ]);
    expect(result).toMatchObject({ truncated: false, filesSearched: 3, filesSkipped: 1 });
  });

  test('honours caseSensitive, glob, and treats regex characters literally unless regex is set', async () => {
    expect((await searchFiles(context, { query: 'API', caseSensitive: true })).matches.map((match) => match.path)).toEqual(['README.md', 'docs/install.mdx']);
    expect((await searchFiles(context, { query: 'api', glob: '**/*.md' })).matches.map((match) => match.path)).toEqual(['README.md', 'docs/usage.md']);
    expect((await searchFiles(context, { query: '(the API' })).matches).toHaveLength(1);
    expect((await searchFiles(context, { query: 'd.cs/' })).matches).toHaveLength(0);
    const regex = await searchFiles(context, { query: '^(Run|Call) .*(docwright|key)', regex: true });
    expect(regex.matches.map((match) => `${match.path}:${match.line}`)).toEqual(['docs/install.mdx:3', 'docs/usage.md:3']);
    // The carriage return of a CRLF line is not part of the reported text.
    expect(regex.matches[0]?.text).toBe('Run `npm install docwright`.');
  });

  test('rejects invalid and oversized queries with a clear message', async () => {
    expect(await failure(searchFiles(context, { query: '(unclosed', regex: true }))).toMatch(/not a valid regular expression/);
    expect(await failure(searchFiles(context, { query: '' }))).toMatch(/non-empty/);
    expect(await failure(searchFiles(context, { query: 'x'.repeat(1001) }))).toMatch(/longer than 1000/);
    expect(await failure(searchFiles(context, { query: 'x', glob: '../*' }))).toMatch(/"\.\."/);
  });

  test('caps matches and the length of matched lines, centring long lines on the match', async () => {
    await fixture.put('many.md', Array.from({ length: 30 }, (_, index) => `needle ${index}`).join('\n'));
    await fixture.put('long.md', `${'a'.repeat(500)}needle${'b'.repeat(500)}`);
    const capped = createToolContext({ workspace: fixture.workspace, limits: { maxSearchResults: 5, maxSearchLineLength: 40 } });
    const many = await searchFiles(capped, { query: 'needle', glob: 'many.md' });
    expect(many.matches).toHaveLength(5);
    expect(many.truncated).toBe(true);
    const long = await searchFiles(capped, { query: 'needle', glob: 'long.md' });
    expect(long.matches[0]?.text).toMatch(/^…a+needleb+…$/);
    expect(long.matches[0]?.text.length).toBe(42);
  });

  test('stops a catastrophic regular expression at the time limit', async () => {
    await fixture.put('evil.md', `${'a'.repeat(40)}!\n`);
    const quick = createToolContext({ workspace: fixture.workspace, limits: { searchTimeoutMs: 300 } });
    const started = Date.now();
    expect(await failure(searchFiles(quick, { query: '^(a+)+$', regex: true, glob: 'evil.md' }))).toMatch(/longer than 300 ms/);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  test('caps the number of files searched', async () => {
    const capped = createToolContext({ workspace: fixture.workspace, limits: { maxScannedFiles: 2 } });
    const result = await searchFiles(capped, { query: 'api' });
    expect(result.truncated).toBe(true);
    expect(result.filesSearched + result.filesSkipped).toBe(2);
  });
});
