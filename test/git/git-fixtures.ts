import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/**
 * Real repositories for git tests, built with the git CLI directly (not with the code under
 * test), under a fresh temporary directory each.
 */
const FIXTURE_ENV: NodeJS.ProcessEnv = {
  PATH: process.env.PATH,
  HOME: tmpdir(),
  LANG: 'C',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'Docs Writer',
  GIT_AUTHOR_EMAIL: 'writer@example.com',
  GIT_COMMITTER_NAME: 'Docs Writer',
  GIT_COMMITTER_EMAIL: 'writer@example.com',
};

export function fixtureGit(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: FIXTURE_ENV, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

export function temporaryDirectory(prefix = 'docwright-git-'): { path: string; cleanup: () => void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) };
}

/** A normal (non-bare) repository with `main` checked out and one commit of `files`. */
export function createRepository(path: string, files: Record<string, string> = { 'README.md': '# Docs\n' }): string {
  mkdirSync(path, { recursive: true });
  fixtureGit(path, 'init', '--quiet', '--initial-branch=main');
  writeFiles(path, files);
  fixtureGit(path, 'add', '--all');
  fixtureGit(path, 'commit', '--quiet', '-m', 'Initial docs');
  return path;
}

/** A bare repository holding the history of a fresh non-bare one. */
export function createBareRepository(path: string, files?: Record<string, string>): string {
  const seed = `${path}.seed`;
  createRepository(seed, files);
  mkdirSync(dirname(path), { recursive: true });
  fixtureGit(dirname(path), 'clone', '--quiet', '--bare', seed, path);
  rmSync(seed, { recursive: true, force: true });
  return path;
}

export function commitFiles(repository: string, files: Record<string, string>, message: string): string {
  writeFiles(repository, files);
  fixtureGit(repository, 'add', '--all');
  fixtureGit(repository, 'commit', '--quiet', '-m', message);
  return fixtureGit(repository, 'rev-parse', 'HEAD');
}

export function writeFiles(directory: string, files: Record<string, string>): void {
  for (const [name, content] of Object.entries(files)) {
    const path = join(directory, name);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, content);
  }
}

/** `git log` of a branch in any repository, bare or not: "sha author-email subject" per line. */
export function logOf(repository: string, ref: string): string[] {
  return fixtureGit(repository, 'log', '--format=%H %ae %s', ref, '--')
    .split('\n')
    .filter((line) => line.length > 0);
}
