import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { resolveInWorkspace, ToolFailure, isGitName, parseWorkspacePath } from '../../../src/agent/tools/index.js';
import { createTemporaryWorkspace, type TemporaryWorkspace } from './temporary-workspace.js';

let fixture: TemporaryWorkspace;
let realWorkspace: string;

beforeEach(async () => {
  fixture = await createTemporaryWorkspace();
  realWorkspace = await realpath(fixture.workspace);
  await fixture.put('docs/intro.mdx', '# Intro\n');
});

afterEach(async () => {
  await fixture.remove();
});

async function refusal(relativePath: string, forWrite = false): Promise<string> {
  const error = await resolveInWorkspace(fixture.workspace, relativePath, { forWrite }).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error, `expected ${JSON.stringify(relativePath)} to be refused`).toBeInstanceOf(ToolFailure);
  return (error as ToolFailure).message;
}

describe('lexical rules', () => {
  test.each([
    ['/etc/passwd', /absolute/],
    ['C:/Windows/win.ini', /absolute/],
    ['../outside/secret.txt', /"\.\."/],
    ['docs/../../outside/secret.txt', /"\.\."/],
    ['docs/..', /"\.\."/],
    ['docs\\..\\..\\outside', /backslash/],
    ['docs/a\0.md', /NUL/],
    ['docs/a\n.md', /control/],
    ['', /empty/],
    ['./', /workspace root/],
    ['.git/config', /\.git/],
    ['docs/.GIT/config', /\.git/],
    ['.Git', /\.git/],
    ['.git./config', /\.git/],
    ['.g\u200cit/config', /\.git/],
    ['GIT~1/config', /\.git/],
  ])('refuses %j', async (input, message) => {
    expect(await refusal(input)).toMatch(message);
    expect(await refusal(input, true)).toMatch(message);
  });

  test('refuses overlong paths', () => {
    expect(() => parseWorkspacePath('a/'.repeat(600), 1024)).toThrow(/longer than 1024/);
  });

  test('drops "." and empty segments', () => {
    expect(parseWorkspacePath('./docs//./intro.mdx', 1024)).toEqual(['docs', 'intro.mdx']);
  });

  test('recognises spellings of .git, not look-alikes', () => {
    for (const name of ['.git', '.GIT', '.gIt', '.git.', '.git ', '.git::$INDEX_ALLOCATION', 'git~1', '.gi\u200dt']) {
      expect(isGitName(name), name).toBe(true);
    }
    for (const name of ['.github', 'git', '.gitignore', '.gitkeep', 'x.git', '.git-blame-ignore-revs']) {
      expect(isGitName(name), name).toBe(false);
    }
  });

  test('treats percent-encoded dots literally, as a name inside the workspace', async () => {
    const resolved = await resolveInWorkspace(fixture.workspace, '%2e%2e/secret.txt', { forWrite: true });
    expect(resolved.absolute).toBe(path.join(realWorkspace, '%2e%2e', 'secret.txt'));
    expect(resolved.kind).toBe('missing');
  });
});

describe('resolution on disk', () => {
  test('resolves existing files, directories and missing paths', async () => {
    expect(await resolveInWorkspace(fixture.workspace, 'docs/intro.mdx')).toEqual({
      absolute: path.join(realWorkspace, 'docs', 'intro.mdx'),
      relative: 'docs/intro.mdx',
      kind: 'file',
    });
    expect((await resolveInWorkspace(fixture.workspace, 'docs')).kind).toBe('directory');
    expect(await resolveInWorkspace(fixture.workspace, 'new/dir/page.mdx', { forWrite: true })).toEqual({
      absolute: path.join(realWorkspace, 'new', 'dir', 'page.mdx'),
      relative: 'new/dir/page.mdx',
      kind: 'missing',
    });
  });

  test('refuses a path below a file', async () => {
    expect(await refusal('docs/intro.mdx/child.md', true)).toMatch(/not a directory/);
  });

  test('refuses a symbolic link in any component, even one that stays inside the workspace', async () => {
    await fixture.link('alias', 'docs');
    await fixture.link('latest.mdx', 'docs/intro.mdx');
    await fixture.link('docs/deeper/alias', '../../docs');
    for (const forWrite of [false, true]) {
      expect(await refusal('alias/intro.mdx', forWrite)).toMatch(
        /alias is a symbolic link to docs; the tools do not follow symbolic links, so use docs instead/,
      );
      expect(await refusal('alias/new.mdx', forWrite)).toMatch(/alias is a symbolic link to docs/);
      expect(await refusal('docs/deeper/alias/intro.mdx', forWrite)).toMatch(/docs\/deeper\/alias is a symbolic link to docs/);
    }
    expect(await refusal('latest.mdx')).toMatch(/latest\.mdx is a symbolic link to docs\/intro\.mdx/);
  });

  test('a chain of links is refused at its first link, wherever the last one points', async () => {
    await fixture.link('first', 'second');
    await fixture.link('second', fixture.outside);
    for (const forWrite of [false, true])
      expect(await refusal('first/secret.txt', forWrite)).toMatch(/first is a symbolic link that points outside the workspace/);
  });

  test('does not follow a final symbolic link when resolving for a write', async () => {
    await fixture.link('latest.mdx', 'docs/intro.mdx');
    const resolved = await resolveInWorkspace(fixture.workspace, 'latest.mdx', { forWrite: true });
    expect(resolved).toEqual({ absolute: path.join(realWorkspace, 'latest.mdx'), relative: 'latest.mdx', kind: 'symlink' });
  });

  test('refuses directory and file links that point outside, at any depth', async () => {
    await fixture.link('out', fixture.outside);
    await fixture.link('docs/deep/nested/out', '../../../../outside');
    await fixture.link('secret.txt', path.join(fixture.outside, 'secret.txt'));
    for (const forWrite of [false, true]) {
      expect(await refusal('out/secret.txt', forWrite)).toMatch(/outside the workspace/);
      expect(await refusal('out/new.txt', forWrite)).toMatch(/outside the workspace/);
      expect(await refusal('docs/deep/nested/out/secret.txt', forWrite)).toMatch(/outside the workspace/);
    }
    expect(await refusal('secret.txt')).toMatch(/outside the workspace/);
  });

  test('refuses links into .git and dangling links', async () => {
    await fixture.link('gitdir', '.git');
    await fixture.link('config', '.git/config');
    await fixture.link('dangling', path.join(fixture.outside, 'does-not-exist'));
    expect(await refusal('gitdir/config')).toMatch(/\.git/);
    expect(await refusal('gitdir/hooks/pre-commit', true)).toMatch(/\.git/);
    expect(await refusal('config')).toMatch(/\.git/);
    expect(await refusal('dangling')).toMatch(/does not exist/);
    expect(await refusal('dangling/child', true)).toMatch(/does not exist/);
  });

  test('a workspace reached through a symbolic link works', async () => {
    const linkedWorkspace = path.join(fixture.base, 'linked');
    const { symlink } = await import('node:fs/promises');
    await symlink(fixture.workspace, linkedWorkspace);
    const resolved = await resolveInWorkspace(linkedWorkspace, 'docs/intro.mdx');
    expect(resolved.absolute).toBe(path.join(realWorkspace, 'docs', 'intro.mdx'));
  });
});
