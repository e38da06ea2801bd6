import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { lstat, readFile as readRaw, readlink } from 'node:fs/promises';
import path from 'node:path';
import { createToolContext, deleteFile, editFile, moveFile, writeFile, type ToolContext } from '../../../src/agent/tools/index.js';
import { createTemporaryWorkspace, OUTSIDE_SECRET, type TemporaryWorkspace } from './temporary-workspace.js';
import { failure } from './tool-failure-message.js';

let fixture: TemporaryWorkspace;
let context: ToolContext;

beforeEach(async () => {
  fixture = await createTemporaryWorkspace();
  context = createToolContext({ workspace: fixture.workspace });
});

afterEach(async () => {
  await fixture.remove();
});

const inWorkspace = (relative: string): Promise<string> => readRaw(path.join(fixture.workspace, relative), 'utf8');
const exists = (relative: string): Promise<boolean> =>
  lstat(path.join(fixture.workspace, relative)).then(
    () => true,
    () => false,
  );
const outsideSecret = (): Promise<string> => readRaw(path.join(fixture.outside, 'secret.txt'), 'utf8');

describe('write_file', () => {
  test('creates files and parent directories, and replaces existing files', async () => {
    expect(await writeFile(context, { path: 'guides/new/page.mdx', content: '# Héllo\n' })).toEqual({
      path: 'guides/new/page.mdx',
      bytes: 9,
      created: true,
    });
    expect(await inWorkspace('guides/new/page.mdx')).toBe('# Héllo\n');
    expect(await writeFile(context, { path: 'guides/new/page.mdx', content: 'v2' })).toMatchObject({ created: false });
    expect(await inWorkspace('guides/new/page.mdx')).toBe('v2');
    expect(context.changes.paths()).toEqual(['guides/new/page.mdx']);
  });

  test('caps the content size', async () => {
    const small = createToolContext({ workspace: fixture.workspace, limits: { maxWriteBytes: 4 } });
    expect(await failure(writeFile(small, { path: 'a.md', content: 'ééé' }))).toMatch(/6 bytes, above the limit of 4/);
    expect(await exists('a.md')).toBe(false);
  });

  test('never writes through a symbolic link, inside or outside', async () => {
    await fixture.put('docs/v2.md', 'v2');
    await fixture.link('latest.md', 'docs/v2.md');
    await fixture.link('escape.md', path.join(fixture.outside, 'secret.txt'));
    await fixture.link('outdir', fixture.outside);
    await fixture.link('dangling.md', path.join(fixture.outside, 'created-by-write.md'));
    expect(await failure(writeFile(context, { path: 'latest.md', content: 'x' }))).toMatch(/symbolic link to docs\/v2\.md; change docs\/v2\.md instead/);
    expect(await failure(writeFile(context, { path: 'escape.md', content: 'x' }))).toMatch(/symbolic link/);
    expect(await failure(writeFile(context, { path: 'outdir/new.md', content: 'x' }))).toMatch(/outside the workspace/);
    expect(await failure(writeFile(context, { path: 'dangling.md', content: 'x' }))).toMatch(/symbolic link/);
    expect(await inWorkspace('docs/v2.md')).toBe('v2');
    expect(await outsideSecret()).toBe(OUTSIDE_SECRET);
    expect(await exists('../outside/created-by-write.md')).toBe(false);
    expect(context.changes.paths()).toEqual([]);
  });

  test('refuses .git, directories, and paths below a file', async () => {
    await fixture.put('docs/a.md', 'a');
    expect(await failure(writeFile(context, { path: '.git/hooks/post-checkout', content: '#!/bin/sh' }))).toMatch(/\.git/);
    expect(await failure(writeFile(context, { path: 'docs/.Git/config', content: 'x' }))).toMatch(/\.git/);
    expect(await failure(writeFile(context, { path: 'docs', content: 'x' }))).toMatch(/directory/);
    expect(await failure(writeFile(context, { path: 'docs/a.md/b.md', content: 'x' }))).toMatch(/not a directory/);
    expect(await exists('.git/hooks/post-checkout')).toBe(false);
  });
});

describe('edit_file', () => {
  beforeEach(async () => {
    await fixture.put('page.md', '# Title\n\nInstall with npm.\n\nRun npm test.\n');
  });

  test('replaces the one exact match and reports its line', async () => {
    expect(await editFile(context, { path: 'page.md', oldString: 'Install with npm.', newString: 'Install with pnpm.' })).toEqual({
      path: 'page.md',
      line: 3,
    });
    expect(await inWorkspace('page.md')).toBe('# Title\n\nInstall with pnpm.\n\nRun npm test.\n');
    expect(context.changes.changes()).toEqual([{ path: 'page.md', kind: 'edited' }]);
  });

  test('says when the text is missing or ambiguous', async () => {
    expect(await failure(editFile(context, { path: 'page.md', oldString: 'install with npm', newString: 'x' }))).toMatch(/not found in page\.md/);
    expect(await failure(editFile(context, { path: 'page.md', oldString: 'npm', newString: 'pnpm' }))).toMatch(
      /occurs 2 times in page\.md \(at lines 3, 5\); include more surrounding context/,
    );
    expect(await failure(editFile(context, { path: 'page.md', oldString: '', newString: 'x' }))).toMatch(/non-empty/);
    expect(await failure(editFile(context, { path: 'page.md', oldString: 'npm test', newString: 'npm test' }))).toMatch(/same/);
    expect(await failure(editFile(context, { path: 'missing.md', oldString: 'a', newString: 'b' }))).toMatch(/does not exist/);
    expect(await inWorkspace('page.md')).toBe('# Title\n\nInstall with npm.\n\nRun npm test.\n');
    expect(context.changes.paths()).toEqual([]);
  });

  test('matches multi-line text in files with Windows line endings', async () => {
    await fixture.put('crlf.md', 'a\r\nb\r\nc\r\n');
    await editFile(context, { path: 'crlf.md', oldString: 'a\nb', newString: 'A\nB' });
    expect(await inWorkspace('crlf.md')).toBe('A\r\nB\r\nc\r\n');
  });

  test('refuses binary files, links and oversized results', async () => {
    await fixture.put('image.png', Buffer.from([1, 0, 2]));
    await fixture.link('alias.md', 'page.md');
    expect(await failure(editFile(context, { path: 'image.png', oldString: 'a', newString: 'b' }))).toMatch(/binary/);
    expect(await failure(editFile(context, { path: 'alias.md', oldString: 'npm.', newString: 'x' }))).toMatch(/symbolic link to page\.md/);
    const small = createToolContext({ workspace: fixture.workspace, limits: { maxFileBytes: 50 } });
    expect(await failure(editFile(small, { path: 'page.md', oldString: 'Run', newString: 'Run the whole test suite with' }))).toMatch(/above the limit of 50/);
  });
});

describe('delete_file', () => {
  test('deletes files and links themselves, not their targets', async () => {
    await fixture.put('docs/old.md', 'old');
    await fixture.link('escape.md', path.join(fixture.outside, 'secret.txt'));
    expect(await deleteFile(context, { path: 'docs/old.md' })).toEqual({ path: 'docs/old.md', deleted: true });
    expect(await deleteFile(context, { path: 'escape.md' })).toEqual({ path: 'escape.md', deleted: true });
    expect(await exists('docs/old.md')).toBe(false);
    expect(await exists('escape.md')).toBe(false);
    expect(await outsideSecret()).toBe(OUTSIDE_SECRET);
    expect(context.changes.paths()).toEqual(['docs/old.md', 'escape.md']);
  });

  test('refuses directories, missing files, .git and paths through outside links', async () => {
    await fixture.put('docs/a.md', 'a');
    await fixture.link('outdir', fixture.outside);
    expect(await failure(deleteFile(context, { path: 'docs' }))).toMatch(/directory/);
    expect(await failure(deleteFile(context, { path: 'nope.md' }))).toMatch(/does not exist/);
    expect(await failure(deleteFile(context, { path: '.git/config' }))).toMatch(/\.git/);
    expect(await failure(deleteFile(context, { path: 'outdir/secret.txt' }))).toMatch(/outside the workspace/);
    expect(await outsideSecret()).toBe(OUTSIDE_SECRET);
    expect(await exists('.git/config')).toBe(true);
  });
});

describe('move_file', () => {
  test('moves a file, creating the target directory, and records both paths', async () => {
    await fixture.put('docs/intro.md', 'intro');
    expect(await moveFile(context, { from: 'docs/intro.md', to: 'guides/start/intro.md' })).toEqual({
      from: 'docs/intro.md',
      to: 'guides/start/intro.md',
      linksUpdated: [],
      navigationUpdated: [],
      notUpdated: [],
    });
    expect(await exists('docs/intro.md')).toBe(false);
    expect(await inWorkspace('guides/start/intro.md')).toBe('intro');
    expect(context.changes.paths()).toEqual(['docs/intro.md', 'guides/start/intro.md']);
  });

  test('refuses to overwrite, to move links, and to leave the workspace', async () => {
    await fixture.put('a.md', 'a');
    await fixture.put('b.md', 'b');
    await fixture.link('link.md', 'a.md');
    await fixture.link('outdir', fixture.outside);
    expect(await failure(moveFile(context, { from: 'a.md', to: 'b.md' }))).toMatch(/b\.md already exists/);
    expect(await failure(moveFile(context, { from: 'a.md', to: 'link.md' }))).toMatch(/already exists/);
    expect(await failure(moveFile(context, { from: 'link.md', to: 'c.md' }))).toMatch(/symbolic link/);
    expect(await failure(moveFile(context, { from: 'a.md', to: 'outdir/a.md' }))).toMatch(/outside the workspace/);
    expect(await failure(moveFile(context, { from: 'outdir/secret.txt', to: 'stolen.txt' }))).toMatch(/outside the workspace/);
    expect(await failure(moveFile(context, { from: 'a.md', to: '.git/a.md' }))).toMatch(/\.git/);
    expect(await failure(moveFile(context, { from: '.git/config', to: 'config' }))).toMatch(/\.git/);
    expect(await failure(moveFile(context, { from: 'missing.md', to: 'c.md' }))).toMatch(/does not exist/);
    expect(await inWorkspace('a.md')).toBe('a');
    expect(await inWorkspace('b.md')).toBe('b');
    expect(await readlink(path.join(fixture.workspace, 'link.md'))).toBe('a.md');
    expect(await outsideSecret()).toBe(OUTSIDE_SECRET);
    expect(context.changes.paths()).toEqual([]);
  });
});
