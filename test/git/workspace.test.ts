import { chmodSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { ManualClock } from '../../src/core/clock.js';
import { AGENT_EMAIL, diffBetween, prepareWorkspace, remoteBranchExists } from '../../src/git/workspace.js';
import { commitFiles, createBareRepository, createRepository, fixtureGit, logOf, temporaryDirectory, writeFiles } from './git-fixtures.js';
import { rejection } from '../helpers/rejection.js';

let temp: ReturnType<typeof temporaryDirectory>;
beforeEach(() => {
  temp = temporaryDirectory();
});
afterEach(() => temp.cleanup());

describe('prepareWorkspace against a non-bare local repository (local forge)', () => {
  test('creates the job branch, commits as the agent and pushes without touching the checked-out branch', async () => {
    const source = createRepository(join(temp.path, 'docs'), { 'README.md': '# Docs\n', 'guide/intro.md': 'Hello\n' });
    const mainBefore = fixtureGit(source, 'rev-parse', 'main');
    const clock = new ManualClock(Date.UTC(2026, 2, 4, 12, 0, 0));

    const workspace = await prepareWorkspace({ remoteUrl: source, baseRef: 'main', branch: 'docwright/job-1', directory: join(temp.path, 'w1'), clock });
    expect(workspace.continued).toBe(false);
    expect(workspace.startCommit).toBe(mainBefore);
    // HEAD stays on the cloned base branch; only the push names the job's branch.
    expect(fixtureGit(workspace.directory, 'symbolic-ref', '--short', 'HEAD')).toBe('main');

    writeFiles(workspace.directory, { 'guide/intro.md': 'Hello, reader\n', 'guide/new page.md': '# New\n' });
    expect(await workspace.changedFiles()).toEqual(['guide/intro.md', 'guide/new page.md']);

    const commit = await workspace.commitAll({ message: 'Improve the intro\n\nChanged files:\n- guide/intro.md\n' });
    expect(commit).toMatch(/^[0-9a-f]{40}$/);
    expect(await workspace.changedFiles()).toEqual([]);
    expect(fixtureGit(workspace.directory, 'log', '-1', '--format=%an <%ae>|%cn <%ce>|%at|%s')).toBe(
      `Docwright Agent <${AGENT_EMAIL}>|Docwright Agent <${AGENT_EMAIL}>|${Date.UTC(2026, 2, 4, 12, 0, 0) / 1000}|Improve the intro`,
    );

    expect(await workspace.push()).toBe(commit);
    const remoteLog = logOf(source, 'docwright/job-1');
    expect(remoteLog[0]).toBe(`${commit} ${AGENT_EMAIL} Improve the intro`);
    expect(remoteLog[1]?.startsWith(mainBefore)).toBe(true);
    // The user's checkout stays as it was.
    expect(fixtureGit(source, 'rev-parse', 'main')).toBe(mainBefore);
    expect(fixtureGit(source, 'status', '--porcelain')).toBe('');
    expect(await remoteBranchExists(source, 'docwright/job-1')).toBe(true);

    const diff = await diffBetween(source, 'main', 'docwright/job-1');
    expect(diff.truncated).toBe(false);
    expect(diff.text).toContain('+++ b/guide/new page.md');
    expect(diff.text).toContain('-Hello\n+Hello, reader');
    const small = await diffBetween(source, 'main', 'docwright/job-1', { maxBytes: 40 });
    expect(small).toEqual({ text: diff.text.slice(0, 40), truncated: true });
  });

  test('a follow-up continues the existing branch with a fast-forward commit', async () => {
    const source = createRepository(join(temp.path, 'docs'));
    const first = await prepareWorkspace({ remoteUrl: source, baseRef: 'main', branch: 'docwright/job-2', directory: join(temp.path, 'turn1') });
    writeFiles(first.directory, { 'a.md': 'one\n' });
    const firstCommit = await first.commitAll({ message: 'Add a' });
    await first.push();
    await first.remove();
    expect(existsSync(first.directory)).toBe(false);

    // Meanwhile the user keeps working on main; the follow-up must still build on the job branch.
    commitFiles(source, { 'b.md': 'main moved\n' }, 'Unrelated work');

    const second = await prepareWorkspace({ remoteUrl: source, baseRef: 'main', branch: 'docwright/job-2', directory: join(temp.path, 'turn2') });
    expect(second.continued).toBe(true);
    expect(second.startCommit).toBe(firstCommit);
    expect(readFileSync(join(second.directory, 'a.md'), 'utf8')).toBe('one\n');
    expect(existsSync(join(second.directory, 'b.md'))).toBe(false);

    writeFileSync(join(second.directory, 'a.md'), 'one\ntwo\n');
    const secondCommit = await second.commitAll({ message: 'Extend a' });
    await second.push();
    expect(fixtureGit(source, 'rev-parse', `${secondCommit}^`)).toBe(firstCommit);
    expect(logOf(source, 'docwright/job-2').map((line) => line.split(' ').slice(1).join(' '))).toEqual([
      `${AGENT_EMAIL} Extend a`,
      `${AGENT_EMAIL} Add a`,
      'writer@example.com Initial docs',
    ]);

    const turnDiff = await second.diff();
    expect(turnDiff?.text).toContain('+two');
    expect(turnDiff?.text).not.toContain('+one');
  });

  test('branchHint "exists" clones the job branch directly, and falls back to the base when the branch is gone', async () => {
    const source = createRepository(join(temp.path, 'docs'));
    const first = await prepareWorkspace({ remoteUrl: source, baseRef: 'main', branch: 'docwright/hinted', directory: join(temp.path, 'turn1') });
    writeFiles(first.directory, { 'a.md': 'one\n' });
    const firstCommit = await first.commitAll({ message: 'Add a' });
    await first.push();

    const hinted = await prepareWorkspace({
      remoteUrl: source,
      baseRef: 'main',
      branch: 'docwright/hinted',
      directory: join(temp.path, 'turn2'),
      branchHint: 'exists',
    });
    expect(hinted.continued).toBe(true);
    expect(hinted.startCommit).toBe(firstCommit);
    expect(fixtureGit(hinted.directory, 'symbolic-ref', '--short', 'HEAD')).toBe('docwright/hinted');

    // Someone deleted the branch (say, after merging its PR): the turn starts again from the base.
    fixtureGit(source, 'branch', '-D', 'docwright/hinted');
    const restarted = await prepareWorkspace({
      remoteUrl: source,
      baseRef: 'main',
      branch: 'docwright/hinted',
      directory: join(temp.path, 'turn3'),
      branchHint: 'exists',
    });
    expect(restarted.continued).toBe(false);
    expect(restarted.startCommit).toBe(fixtureGit(source, 'rev-parse', 'main'));
    expect(existsSync(join(restarted.directory, 'a.md'))).toBe(false);
  });

  test('stageAll lists added, edited, deleted and both ends of moved files; commitStaged commits exactly those', async () => {
    const source = createRepository(join(temp.path, 'docs'), { 'keep.md': 'keep\n', 'edit.md': 'old\n', 'gone.md': 'bye\n', 'from.md': 'moving\n' });
    const workspace = await prepareWorkspace({ remoteUrl: source, baseRef: 'main', branch: 'docwright/stage', directory: join(temp.path, 'w') });
    writeFiles(workspace.directory, { 'edit.md': 'new\n', 'sub dir/new page.md': '# New\n' });
    rmSync(join(workspace.directory, 'gone.md'));
    renameSync(join(workspace.directory, 'from.md'), join(workspace.directory, 'to.md'));

    expect(await workspace.stageAll()).toEqual(['edit.md', 'from.md', 'gone.md', 'sub dir/new page.md', 'to.md']);
    const commit = await workspace.commitStaged({ message: 'Rework pages' });
    expect(commit).toBe(fixtureGit(workspace.directory, 'rev-parse', 'HEAD'));
    expect(await workspace.stageAll()).toEqual([]);
    expect(await workspace.commitStaged({ message: 'Nothing more' })).toBeNull();
  });

  test('stageAllEntries reports staged modes; unstage takes exactly the named paths back out, whatever their names', async () => {
    const source = createRepository(join(temp.path, 'docs'), { 'page.md': 'old\n', 'run.sh': 'echo\n', 'gone.md': 'bye\n' });
    const workspace = await prepareWorkspace({ remoteUrl: source, baseRef: 'main', branch: 'docwright/unstage', directory: join(temp.path, 'w') });
    writeFiles(workspace.directory, { 'page.md': 'new\n', '*.md': 'star\n', ':(glob)x.md': 'magic\n', '.github/workflows/ci.yml': 'on: push\n' });
    chmodSync(join(workspace.directory, 'run.sh'), 0o755);
    rmSync(join(workspace.directory, 'gone.md'));

    expect(await workspace.stageAllEntries()).toEqual([
      { path: '*.md', mode: '100644' },
      { path: '.github/workflows/ci.yml', mode: '100644' },
      { path: ':(glob)x.md', mode: '100644' },
      { path: 'gone.md', mode: '000000' },
      { path: 'page.md', mode: '100644' },
      { path: 'run.sh', mode: '100755' },
    ]);
    await workspace.unstage(['*.md', ':(glob)x.md', '.github/workflows/ci.yml', 'run.sh', 'gone.md']);
    expect(fixtureGit(workspace.directory, 'diff', '--cached', '--name-only')).toBe('page.md');
    await workspace.commitStaged({ message: 'Only the page' });
    expect(fixtureGit(workspace.directory, 'show', '--name-only', '--format=', 'HEAD')).toBe('page.md');
  });

  test('nothing changed gives a null commit and leaves the history alone', async () => {
    const source = createRepository(join(temp.path, 'docs'));
    const workspace = await prepareWorkspace({ remoteUrl: source, baseRef: 'main', branch: 'docwright/idle', directory: join(temp.path, 'w') });
    expect(await workspace.changedFiles()).toEqual([]);
    expect(await workspace.commitAll({ message: 'Nothing' })).toBeNull();
    expect(await workspace.headCommit()).toBe(workspace.startCommit);
    expect(await remoteBranchExists(source, 'docwright/idle')).toBe(false);
  });

  test('deleted files count as changes and are committed', async () => {
    const source = createRepository(join(temp.path, 'docs'), { 'old.md': 'x\n', 'keep.md': 'y\n' });
    const workspace = await prepareWorkspace({ remoteUrl: source, baseRef: 'main', branch: 'docwright/delete', directory: join(temp.path, 'w') });
    rmSync(join(workspace.directory, 'old.md'));
    expect(await workspace.changedFiles()).toEqual(['old.md']);
    await workspace.commitAll({ message: 'Remove old page' });
    expect(fixtureGit(workspace.directory, 'ls-tree', '--name-only', 'HEAD')).toBe('keep.md');
  });

  test('a push that is not a fast-forward is refused with git_push_rejected', async () => {
    const source = createRepository(join(temp.path, 'docs'));
    const seed = await prepareWorkspace({ remoteUrl: source, baseRef: 'main', branch: 'docwright/race', directory: join(temp.path, 'seed') });
    writeFiles(seed.directory, { 'a.md': 'a\n' });
    await seed.commitAll({ message: 'Seed' });
    await seed.push();

    const one = await prepareWorkspace({ remoteUrl: source, baseRef: 'main', branch: 'docwright/race', directory: join(temp.path, 'one') });
    const two = await prepareWorkspace({ remoteUrl: source, baseRef: 'main', branch: 'docwright/race', directory: join(temp.path, 'two') });
    writeFiles(one.directory, { 'one.md': '1\n' });
    writeFiles(two.directory, { 'two.md': '2\n' });
    const winner = await one.commitAll({ message: 'One' });
    await two.commitAll({ message: 'Two' });
    await one.push();
    const error = await rejection(two.push());
    expect(error.code).toBe('git_push_rejected');
    expect(error.status).toBe(409);
    expect(fixtureGit(source, 'rev-parse', 'docwright/race')).toBe(winner);
  });

  test('a missing base ref is reported as git_ref_not_found', async () => {
    const source = createRepository(join(temp.path, 'docs'));
    const error = await rejection(prepareWorkspace({ remoteUrl: source, baseRef: 'release', branch: 'docwright/x', directory: join(temp.path, 'w') }));
    expect(error.code).toBe('git_ref_not_found');
    expect(error.message).toContain('"release"');
  });

  test('hooks and commands planted in the clone never run', async () => {
    const source = createRepository(join(temp.path, 'docs'));
    const workspace = await prepareWorkspace({ remoteUrl: source, baseRef: 'main', branch: 'docwright/hooks', directory: join(temp.path, 'w') });
    const marker = join(temp.path, 'ran');
    for (const hook of ['pre-commit', 'commit-msg', 'post-commit', 'pre-push']) {
      writeFileSync(join(workspace.directory, '.git', 'hooks', hook), `#!/bin/sh\ntouch '${marker}-${hook}'\nexit 1\n`, { mode: 0o755 });
    }
    fixtureGit(workspace.directory, 'config', 'core.fsmonitor', `touch '${marker}-fsmonitor'; false`);
    writeFiles(workspace.directory, { 'a.md': 'a\n' });
    expect(await workspace.changedFiles()).toEqual(['a.md']);
    expect(await workspace.commitAll({ message: 'Add a' })).not.toBeNull();
    await workspace.push();
    for (const name of ['pre-commit', 'commit-msg', 'post-commit', 'pre-push', 'fsmonitor']) {
      expect(existsSync(`${marker}-${name}`), name).toBe(false);
    }
  });

  test('refuses a workspace directory that already has content', async () => {
    const source = createRepository(join(temp.path, 'docs'));
    writeFiles(join(temp.path, 'busy'), { 'x.txt': 'x' });
    const error = await rejection(prepareWorkspace({ remoteUrl: source, baseRef: 'main', branch: 'docwright/x', directory: join(temp.path, 'busy') }));
    expect(error.code).toBe('workspace_not_empty');
  });
});

describe('prepareWorkspace against a bare remote over file:// (shallow clone)', () => {
  test('clones one commit deep, pushes new commits and continues shallowly', async () => {
    const bare = createBareRepository(join(temp.path, 'remote.git'));
    const writer = join(temp.path, 'writer');
    fixtureGit(temp.path, 'clone', '--quiet', bare, writer);
    commitFiles(writer, { 'a.md': 'a\n' }, 'Second');
    commitFiles(writer, { 'b.md': 'b\n' }, 'Third');
    fixtureGit(writer, 'push', '--quiet', 'origin', 'main');
    const remoteUrl = `file://${bare}`;

    const first = await prepareWorkspace({ remoteUrl, baseRef: 'refs/heads/main', branch: 'docwright/deep', directory: join(temp.path, 'w1') });
    expect(fixtureGit(first.directory, 'rev-parse', '--is-shallow-repository')).toBe('true');
    expect(fixtureGit(first.directory, 'rev-list', '--count', 'HEAD')).toBe('1');
    writeFiles(first.directory, { 'c.md': 'c\n' });
    const firstCommit = await first.commitAll({ message: 'Add c' });
    await first.push();
    expect(fixtureGit(bare, 'rev-list', '--count', 'docwright/deep')).toBe('4');

    const second = await prepareWorkspace({ remoteUrl, baseRef: 'main', branch: 'docwright/deep', directory: join(temp.path, 'w2') });
    expect(second.continued).toBe(true);
    expect(fixtureGit(second.directory, 'rev-list', '--count', 'HEAD')).toBe('1');
    writeFiles(second.directory, { 'd.md': 'd\n' });
    const secondCommit = await second.commitAll({ message: 'Add d' });
    await second.push();
    expect(fixtureGit(bare, 'rev-parse', 'docwright/deep^')).toBe(firstCommit);
    expect(fixtureGit(bare, 'rev-parse', 'docwright/deep')).toBe(secondCommit);
    expect(fixtureGit(bare, 'fsck', '--strict')).toBe('');

    // The base is not in this single-branch clone; diff fetches it, one commit deep.
    const whole = await second.diff('main');
    expect(whole?.text).toContain('+++ b/c.md');
    expect(whole?.text).toContain('+++ b/d.md');
    expect(whole?.text).not.toContain('b/a.md');
    expect(await second.diff('no-such-branch')).toBeNull();
  });
});

describe('input validation', () => {
  const base = { remoteUrl: '/tmp/nowhere', baseRef: 'main', branch: 'docwright/x', directory: '/tmp/docwright-never-created' };

  test.each([
    ['branch', '--upload-pack=touch /tmp/pwned'],
    ['branch', '-b'],
    ['branch', 'docwright/../x'],
    ['branch', 'has space'],
    ['branch', 'x.lock'],
    ['baseRef', 'main@{1}'],
    ['baseRef', ''],
    ['remoteUrl', '--upload-pack=touch /tmp/pwned'],
    ['remoteUrl', 'ext::sh -c touch% /tmp/pwned'],
    ['remoteUrl', 'https://user:secret@example.com/docs.git'],
  ])('rejects %s %j before running git', async (field, value) => {
    const error = await rejection(prepareWorkspace({ ...base, [field]: value }));
    expect(error.code).toBe('validation_failed');
    expect(error.status).toBe(400);
    expect(error.errors?.[0]?.path).toBe(field);
    expect(existsSync(base.directory)).toBe(false);
  });
});
