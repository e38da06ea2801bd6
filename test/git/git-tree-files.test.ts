import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { changedBetween, GitTreeFiles } from '../../src/git/git-tree-files.js';
import { GitCatFile } from '../../src/git/git-cat-file.js';
import { commitFiles, createRepository, fixtureGit, temporaryDirectory } from './git-fixtures.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function repository(files: Record<string, string>): string {
  const temporary = temporaryDirectory('docwright-tree-');
  cleanups.push(temporary.cleanup);
  return createRepository(join(temporary.path, 'repo'), files);
}

const text = (file: { status: string; bytes?: Uint8Array } | undefined): string | undefined =>
  file?.status === 'read' ? Buffer.from(file.bytes!).toString('utf8') : file?.status;

describe('GitTreeFiles', () => {
  test('reads a commit’s files batch after batch, through one git process that comes back after idling', async () => {
    const files: Record<string, string> = {};
    for (let index = 0; index < 150; index += 1) files[`pages/page-${index}.mdx`] = `# Page ${index}\n${'x'.repeat(index)}\n`;
    const directory = repository({ ...files, 'big.mdx': 'y'.repeat(5_000) });
    const tree = new GitTreeFiles(directory, fixtureGit(directory, 'rev-parse', 'HEAD'));
    const paths = await tree.listFiles();
    expect(paths).toHaveLength(151);
    for (let start = 0; start < 150; start += 64) {
      const batch = Object.keys(files).slice(start, start + 64);
      const read = await tree.readFiles(batch, 1_000);
      for (const path of batch) expect(text(read.get(path))).toBe(files[path]);
    }
    const mixed = await tree.readFiles(['big.mdx', 'nope.mdx', 'pages/page-3.mdx'], 1_000);
    expect([...mixed.values()].map(text)).toEqual(['too-large', 'missing', files['pages/page-3.mdx']]);
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(text((await tree.readFiles(['pages/page-149.mdx'], 1_000)).get('pages/page-149.mdx'))).toBe(files['pages/page-149.mdx']);
  });

  test('a request git cannot answer fails with git_failed, and the next request works', async () => {
    const directory = repository({ 'a.mdx': '# A\n' });
    const blob = fixtureGit(directory, 'rev-parse', 'HEAD:a.mdx');
    const blobs = new GitCatFile(directory, 10_000);
    await expect(blobs.read(['0'.repeat(40)])).rejects.toMatchObject({ code: 'git_failed' });
    const [content] = await blobs.read([blob, blob]);
    expect(Buffer.from(content!).toString('utf8')).toBe('# A\n');
  });

  test('changedBetween lists the paths two commits differ in, both ends of a rename', async () => {
    const directory = repository({ 'a.mdx': '# A\n', 'b.mdx': '# B\n', 'c.mdx': '# C\n' });
    const base = fixtureGit(directory, 'rev-parse', 'HEAD');
    mkdirSync(join(directory, 'moved'));
    fixtureGit(directory, 'mv', 'c.mdx', 'moved/c.mdx');
    const head = commitFiles(directory, { 'a.mdx': '# A changed\n', 'd.mdx': '# D\n' }, 'Edit');
    expect((await changedBetween(directory, base, head)).sort()).toEqual(['a.mdx', 'c.mdx', 'd.mdx', 'moved/c.mdx']);
    expect(await changedBetween(directory, base, base)).toEqual([]);
  });
});
