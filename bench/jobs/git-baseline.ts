import { execFile } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { processCpuMilliseconds } from './process-cpu.js';
import { wallClock } from './timed-fake-model.js';

const run = promisify(execFile);

const GIT_ENVIRONMENT = {
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? '/tmp',
  LANG: 'C',
  LC_ALL: 'C',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_TERMINAL_PROMPT: '0',
  GIT_AUTHOR_NAME: 'Bench',
  GIT_AUTHOR_EMAIL: 'bench@example.com',
  GIT_COMMITTER_NAME: 'Bench',
  GIT_COMMITTER_EMAIL: 'bench@example.com',
};

async function git(cwd: string, ...args: string[]): Promise<void> {
  await run('git', args, { cwd, env: GIT_ENVIRONMENT });
}

export interface GitChange {
  /** The remote: a local non-bare repository path, as the local forge hands to workspace.ts. */
  remote: string;
  page: string;
  oldText: string;
  newText: string;
  branch: string;
  /** Where to clone; removed before and after. */
  directory: string;
}

export interface GitTiming {
  /** clone + edit + add + commit + push, ms. */
  milliseconds: number;
  cloneMilliseconds: number;
  /** CPU of the git commands (and of this process meanwhile) for the same span, ms. */
  cpuMilliseconds: number;
  /** Removing the working copy afterwards (not part of `milliseconds`). */
  cleanupMilliseconds: number;
}

async function cloneLikeTheWorkspace(remote: string, directory: string): Promise<void> {
  await git(join(directory, '..'), 'clone', '--quiet', '--no-tags', '--single-branch', '--branch', 'main', '--', remote, directory);
}

/** Milliseconds of one raw clone of `remote` into `directory` (removed before and after). */
export async function timeRawClone(remote: string, directory: string): Promise<number> {
  rmSync(directory, { recursive: true, force: true });
  const startedAt = wallClock();
  await cloneLikeTheWorkspace(remote, directory);
  const milliseconds = wallClock() - startedAt;
  rmSync(directory, { recursive: true, force: true });
  return milliseconds;
}

/**
 * The floor under a job: the same change made with the git CLI alone. The clone uses the
 * flags src/git/workspace.ts uses for a local remote (single branch, no tags, hard links);
 * the commit and push are what a person would type.
 */
export async function timeRawGitChange(change: GitChange): Promise<GitTiming> {
  rmSync(change.directory, { recursive: true, force: true });
  const cpuBefore = processCpuMilliseconds('self');
  const startedAt = wallClock();
  await cloneLikeTheWorkspace(change.remote, change.directory);
  const clonedAt = wallClock();
  const file = join(change.directory, change.page);
  const text = readFileSync(file, 'utf8');
  if (!text.includes(change.oldText)) throw new Error(`${change.page} does not contain "${change.oldText}"`);
  writeFileSync(file, text.replace(change.oldText, change.newText));
  await git(change.directory, 'add', '--all', '--', '.');
  await git(change.directory, 'commit', '--quiet', '--no-verify', '--message', 'Edit one page');
  await git(change.directory, 'push', '--quiet', '--no-verify', 'origin', `HEAD:refs/heads/${change.branch}`);
  const pushedAt = wallClock();
  const cpuMilliseconds = processCpuMilliseconds('self') - cpuBefore;
  rmSync(change.directory, { recursive: true, force: true });
  return { milliseconds: pushedAt - startedAt, cloneMilliseconds: clonedAt - startedAt, cpuMilliseconds, cleanupMilliseconds: wallClock() - pushedAt };
}
