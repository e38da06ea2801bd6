import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { DocwrightError } from '../../src/core/errors.js';
import { pushFenced } from '../../src/git/fenced-push.js';
import { AGENT_EMAIL, prepareWorkspace, type Workspace } from '../../src/git/workspace.js';
import { createBareRepository, createRepository, fixtureGit, temporaryDirectory, writeFiles } from './git-fixtures.js';
import { rejection } from '../helpers/rejection.js';

let temp: ReturnType<typeof temporaryDirectory>;
beforeEach(() => {
  temp = temporaryDirectory();
});
afterEach(() => temp.cleanup());

const BRANCH = 'docwright/job-f';
const held = async (): Promise<void> => {};
const lost = async (): Promise<void> => {
  throw new DocwrightError('lease_lost', 'The lease has passed to another worker.', { status: 409 });
};

/** Two runs of the same turn: the stale one and the one that took the job over, both cloned before either pushed. */
const remotes = {
  'a local repository (local forge)': () => createRepository(join(temp.path, 'docs')),
  'a bare remote over file:// (shallow clones, like GitHub and GitLab)': () => `file://${createBareRepository(join(temp.path, 'remote.git'))}`,
};

describe.each(Object.entries(remotes))('a fenced push to %s', (_name, makeRemote) => {
  let remote: string;
  let gitDir: string;
  beforeEach(() => {
    remote = makeRemote();
    gitDir = remote.replace(/^file:\/\//, '');
  });

  const clone = (name: string): Promise<Workspace> =>
    prepareWorkspace({ remoteUrl: remote, baseRef: 'main', branch: BRANCH, directory: join(temp.path, name) });
  const branchTip = (): string => fixtureGit(gitDir, 'rev-parse', `refs/heads/${BRANCH}`);

  async function edit(workspace: Workspace, file: string): Promise<string> {
    writeFiles(workspace.directory, { [file]: `${file}\n` });
    const commit = await workspace.commitAll({ message: `Write ${file}` });
    if (commit === null) throw new Error('nothing committed');
    return commit;
  }

  test('a run whose lease has passed on pushes nothing', async () => {
    const stale = await clone('stale');
    await edit(stale, 'stale.md');
    expect((await rejection(pushFenced(stale, lost))).code).toBe('lease_lost');
    expect(fixtureGit(gitDir, 'branch', '--list', BRANCH)).toBe('');
  });

  test("a stale run that passed its check before losing the lease cannot overwrite the newer run's push", async () => {
    const stale = await clone('stale');
    const newer = await clone('newer');
    await edit(stale, 'stale.md');
    const pushed = await edit(newer, 'newer.md');
    await pushFenced(newer, held);
    // Its check passed, then it lost the lease: git refuses on the expected old value, and
    // the recovery's second check refuses the rest.
    let checks = 0;
    const error = await rejection(pushFenced(stale, () => (checks++ === 0 ? held() : lost())));
    expect(error.code).toBe('lease_lost');
    expect(branchTip()).toBe(pushed);
  });

  test("the run holding the lease replaces a stale run's commit pushed in the moment before it lost the lease", async () => {
    const stale = await clone('stale');
    const holder = await clone('holder');
    const staleCommit = await edit(stale, 'stale.md');
    const holderCommit = await edit(holder, 'holder.md');
    await pushFenced(stale, held);
    expect(branchTip()).toBe(staleCommit);
    await pushFenced(holder, held);
    expect(branchTip()).toBe(holderCommit);
    expect(fixtureGit(gitDir, 'log', '--format=%ae', `refs/heads/${BRANCH}`, '-1')).toBe(AGENT_EMAIL);
  });

  test("a person's commit on the branch is never replaced: the turn fails with git_push_rejected", async () => {
    const person = await clone('person');
    const holder = await clone('holder');
    writeFiles(person.directory, { 'person.md': 'by hand\n' });
    fixtureGit(person.directory, 'add', '-A');
    fixtureGit(person.directory, '-c', 'user.name=Docs Team', '-c', 'user.email=docs@example.com', 'commit', '-q', '-m', 'By hand');
    fixtureGit(person.directory, 'push', '-q', 'origin', `HEAD:refs/heads/${BRANCH}`);
    const byHand = branchTip();
    await edit(holder, 'holder.md');
    expect((await rejection(pushFenced(holder, held))).code).toBe('git_push_rejected');
    expect(branchTip()).toBe(byHand);
  });

  test('a follow-up continues the branch: a stale run of it cannot move the branch past the newer run', async () => {
    const first = await clone('first');
    await edit(first, 'first.md');
    await pushFenced(first, held);
    const stale = await clone('stale');
    const newer = await clone('newer');
    expect(stale.continued).toBe(true);
    expect(stale.branchAtStart).toBe(stale.startCommit);
    await edit(stale, 'stale.md');
    const pushed = await edit(newer, 'newer.md');
    await pushFenced(newer, held);
    expect((await rejection(stale.push())).code).toBe('git_push_rejected');
    expect(branchTip()).toBe(pushed);
    expect(fixtureGit(gitDir, 'rev-parse', `refs/heads/${BRANCH}^`)).toBe(stale.startCommit);
  });
});
