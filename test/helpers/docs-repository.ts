import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

const GIT_ENVIRONMENT = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Docs Team',
  GIT_AUTHOR_EMAIL: 'docs@example.com',
  GIT_COMMITTER_NAME: 'Docs Team',
  GIT_COMMITTER_EMAIL: 'docs@example.com',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
};

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: GIT_ENVIRONMENT, encoding: 'utf8' }).trim();
}

/** A small, valid Mintlify-style docs repository, as a non-bare git repository on branch main. */
export function createDocsRepository(files: Record<string, string> = {}): string {
  const directory = mkdtempSync(join(tmpdir(), 'docwright-docs-'));
  git(directory, 'init', '-q', '-b', 'main');
  const content: Record<string, string> = {
    'docs.json': JSON.stringify({ name: 'Example', navigation: [{ group: 'Start', pages: ['index', 'quickstart'] }] }, null, 2),
    'index.mdx': '---\ntitle: Welcome\n---\n\n# Welcome\n\nRead the [quickstart](/quickstart).\n',
    'quickstart.mdx': '---\ntitle: Quickstart\n---\n\n# Quickstart\n\nInstall the CLI.\n',
    ...files,
  };
  for (const [path, text] of Object.entries(content)) {
    mkdirSync(dirname(join(directory, path)), { recursive: true });
    writeFileSync(join(directory, path), text);
  }
  git(directory, 'add', '-A');
  git(directory, 'commit', '-q', '-m', 'Initial docs');
  return directory;
}

/** Commits on `branch` of the repository, newest first. */
export function branchLog(repository: string, branch: string): string[] {
  return git(repository, 'log', '--format=%s', branch).split('\n');
}

export function branches(repository: string): string[] {
  return git(repository, 'branch', '--format=%(refname:short)').split('\n').filter(Boolean).sort();
}

export function showFile(repository: string, ref: string, path: string): string {
  return git(repository, 'show', `${ref}:${path}`);
}
