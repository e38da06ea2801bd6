import { afterAll, afterEach, describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { lstat, readFile as readRaw, readdir, readlink, realpath, symlink } from 'node:fs/promises';
import path from 'node:path';
import { createDocsToolset, resolveInWorkspace, ToolFailure, ToolWorkerPool, isGitName } from '../../../src/agent/tools/index.js';
import { createTemporaryWorkspace, OUTSIDE_SECRET, type TemporaryWorkspace } from './temporary-workspace.js';

const GIT_CONFIG_MARKER = 'repositoryformatversion';
const OUTSIDE_PLACEHOLDER = '<outside>';

const fixtures: TemporaryWorkspace[] = [];
afterEach(async () => {
  await Promise.all(fixtures.splice(0).map((fixture) => fixture.remove()));
});

// One set of tool worker threads for the many toolsets of the property runs: starting a
// worker takes about a second.
const workers = new ToolWorkerPool();
afterAll(() => workers.close());

/** A workspace full of traps: links out of it (absolute, relative, deep, file, dangling, looping) and into .git. */
async function trappedWorkspace(): Promise<TemporaryWorkspace> {
  const fixture = await createTemporaryWorkspace();
  fixtures.push(fixture);
  await fixture.put('docs/intro.mdx', '# Intro\n');
  await fixture.put('docs/guide.md', 'guide\n');
  await fixture.put('.GIT-lookalike/readme.md', 'not git\n');
  await fixture.link('out', fixture.outside);
  await fixture.link('rel-out', '../outside');
  await fixture.link('docs/up', '../..');
  await fixture.link('docs/deep/er/out', '../../../../outside');
  await fixture.link('file-out', path.join(fixture.outside, 'secret.txt'));
  await fixture.link('gitlink', '.git');
  await fixture.link('docs/gitconfig', '../.git/config');
  await fixture.link('dangling', path.join(fixture.outside, 'not-there', 'x'));
  await fixture.link('loop', 'loop');
  await fixture.link('self', '.');
  await fixture.link('docs/alias', '..');
  return fixture;
}

/** Everything outside the workspace plus the workspace's .git, as path → content or link target. */
async function protectedSnapshot(fixture: TemporaryWorkspace): Promise<Map<string, string>> {
  const snapshot = new Map<string, string>();
  const walk = async (directory: string): Promise<void> => {
    for (const name of await readdir(directory)) {
      const full = path.join(directory, name);
      if (full === fixture.workspace) {
        await walk(path.join(full, '.git'));
        snapshot.set(full, 'workspace');
        continue;
      }
      const stats = await lstat(full);
      if (stats.isSymbolicLink()) snapshot.set(full, `link:${await readlink(full)}`);
      else if (stats.isDirectory()) {
        snapshot.set(full, 'dir');
        await walk(full);
      } else snapshot.set(full, `file:${await readRaw(full, 'utf8')}`);
    }
  };
  snapshot.set(path.join(fixture.workspace, '.git'), 'dir');
  await walk(fixture.base);
  return snapshot;
}

const trickySegment = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.constantFrom(
      '..',
      '.',
      '',
      '...',
      '.git',
      '.GIT',
      '.Git.',
      '.git ',
      'git~1',
      '.g\u200cit',
      'docs',
      'out',
      'rel-out',
      'up',
      'deep',
      'er',
      'file-out',
      'gitlink',
      'gitconfig',
      'dangling',
      'loop',
      'self',
      'alias',
      'secret.txt',
      'config',
      'intro.mdx',
      'new.md',
      '%2e%2e',
      '%2E%2e%2f',
      '..%2f',
      '%2e',
      '..\\..',
      '\\',
      'C:',
      '~',
      '\u2025',
      '\uff0e\uff0e',
      'é',
      'e\u0301',
      '\u202e',
      '\0',
      '..\0',
    ),
  },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 6 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 4 }) },
);

/** Known ways out of the trapped workspace, so every run has a fair chance of trying a real one. */
const escapeRoute = fc
  .record({
    prefix: fc.constantFrom('', './', '/', '//', `${OUTSIDE_PLACEHOLDER}/`),
    route: fc.constantFrom(
      'out',
      'rel-out',
      'docs/up/outside',
      'docs/up/workspace/.git',
      'docs/deep/er/out',
      'file-out',
      'gitlink',
      'docs/gitconfig',
      'self/.git',
      'self/self/out',
      'docs/alias/.GIT',
      'docs/alias/gitlink',
      'docs/alias/rel-out',
      '.git',
      '../outside',
      'docs/../../outside',
      'dangling',
      'loop',
      '%2e%2e/outside',
      'docs\\..\\..\\outside',
    ),
    target: fc.constantFrom('', '/secret.txt', '/config', '/new.md', '/HEAD', '/hooks/pre-commit', '/sub/new.md'),
    trailing: fc.constantFrom('', '', '/', '/.'),
  })
  .map(({ prefix, route, target, trailing }) => prefix + route + target + trailing);

/** Paths built from hostile pieces; `<outside>` stands for the absolute outside directory. */
const randomPath = fc
  .record({
    prefix: fc.constantFrom('', '', '/', './', `${OUTSIDE_PLACEHOLDER}/`, '../', '\\', '//'),
    segments: fc.array(trickySegment, { minLength: 1, maxLength: 6 }),
    separator: fc.constantFrom('/', '/', '/', '\\', '/./', '//'),
  })
  .map(({ prefix, segments, separator }) => prefix + segments.join(separator));

const hostilePath = fc.oneof(escapeRoute, randomPath);

function concrete(fixture: TemporaryWorkspace, generated: string): string {
  return generated.replaceAll(OUTSIDE_PLACEHOLDER, fixture.outside);
}

function isInside(root: string, candidate: string): boolean {
  return candidate === root || candidate.startsWith(`${root}${path.sep}`);
}

describe('no generated path escapes the workspace or reaches .git', () => {
  test('resolveInWorkspace refuses with a ToolFailure or lands inside, outside .git', async () => {
    const fixture = await trappedWorkspace();
    const root = await realpath(fixture.workspace);
    await fc.assert(
      fc.asyncProperty(hostilePath, fc.boolean(), async (generated, forWrite) => {
        const input = concrete(fixture, generated);
        let resolved;
        try {
          resolved = await resolveInWorkspace(fixture.workspace, input, { forWrite });
        } catch (error) {
          expect(error).toBeInstanceOf(ToolFailure);
          return;
        }
        expect(isInside(root, resolved.absolute)).toBe(true);
        expect(resolved.relative.split('/').some(isGitName)).toBe(false);
        if (resolved.kind === 'missing') {
          // Its deepest existing ancestor must really be inside.
          let ancestor = path.dirname(resolved.absolute);
          while (
            !(await lstat(ancestor).then(
              () => true,
              () => false,
            ))
          )
            ancestor = path.dirname(ancestor);
          expect(isInside(root, await realpath(ancestor))).toBe(true);
        } else if (resolved.kind === 'symlink') {
          expect(forWrite).toBe(true);
          expect(isInside(root, await realpath(path.dirname(resolved.absolute)))).toBe(true);
        } else {
          const real = await realpath(resolved.absolute);
          expect(isInside(root, real)).toBe(true);
          expect(path.relative(root, real).split(path.sep).some(isGitName)).toBe(false);
        }
      }),
      { numRuns: 400 },
    );
  });

  test('the tools neither read, list, search nor change anything outside the workspace or in .git', async () => {
    await fc.assert(
      fc.asyncProperty(hostilePath, hostilePath, async (first, second) => {
        const fixture = await trappedWorkspace();
        const before = await protectedSnapshot(fixture);
        const unexpected: unknown[] = [];
        const { tools } = createDocsToolset({
          workspace: fixture.workspace,
          onUnexpectedError: (_name, error) => unexpected.push(error),
          workers,
        });
        const from = concrete(fixture, first);
        const to = concrete(fixture, second);
        const call = (name: string, input: object): Promise<unknown> =>
          Promise.resolve(tools[name]!.execute!(input as never, { toolCallId: name, messages: [] })) as Promise<unknown>;

        const outputs = [
          await call('read_file', { path: from }),
          await call('read_file', { path: from, startLine: 1, endLine: 5 }),
          await call('list_files', { pattern: from }),
          await call('list_files', { pattern: `${from}/**` }),
          await call('search', { query: 'outside-content', glob: from }),
          await call('search', { query: GIT_CONFIG_MARKER }),
          await call('write_file', { path: from, content: 'written by the property test' }),
          await call('edit_file', { path: to, oldString: 'Intro', newString: 'Changed' }),
          await call('move_file', { from: 'docs/guide.md', to }),
          await call('move_file', { from, to: 'docs/moved.md' }),
          await call('delete_file', { path: to }),
          await call('list_files', {}),
          await call('check_docs', {}),
        ];
        const shown = JSON.stringify(outputs);
        expect(shown).not.toContain(OUTSIDE_SECRET);
        expect(shown).not.toContain(GIT_CONFIG_MARKER + ' =');
        const listed = outputs.flatMap((output) => (output as { files?: string[] }).files ?? []);
        expect(listed.filter((file) => file.split('/').some(isGitName) || !/^(docs|\.GIT-lookalike)\//.test(file))).toEqual([]);
        expect(unexpected).toEqual([]);
        expect(await protectedSnapshot(fixture)).toEqual(before);
        await fixture.remove();
      }),
      { numRuns: 120 },
    );
  }, 240_000);

  test('a link swapped in for a resolved file is not followed by a write', async () => {
    const fixture = await trappedWorkspace();
    const before = await protectedSnapshot(fixture);
    // A final-component link created where a new file is expected: writes refuse it, never follow it.
    await symlink(path.join(fixture.outside, 'secret.txt'), path.join(fixture.workspace, 'docs', 'trap.md'));
    const { tools } = createDocsToolset({ workspace: fixture.workspace });
    const result = await tools.write_file!.execute!({ path: 'docs/trap.md', content: 'x' } as never, { toolCallId: 't', messages: [] });
    expect(result).toMatchObject({ ok: false });
    const after = await protectedSnapshot(fixture);
    after.delete(path.join(fixture.workspace, 'docs', 'trap.md'));
    expect(after).toEqual(before);
  });
});
