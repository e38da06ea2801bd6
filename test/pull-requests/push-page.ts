import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { git } from '../helpers/docs-repository.js';

/** Commits `text` as `file` on `branch` (created from main the first time) and returns to main. */
export function pushPage(repository: string, branch: string, text: string, file = 'page.mdx'): void {
  git(repository, 'checkout', '-q', branch === 'main' ? 'main' : '-B', ...(branch === 'main' ? [] : [branch]));
  writeFileSync(join(repository, file), text);
  git(repository, 'add', '-A');
  git(repository, 'commit', '-q', '-m', `Write ${text.trim()}`);
  git(repository, 'checkout', '-q', 'main');
}

/** Commits `text` as `file` on top of the existing `branch` (a push of one more commit) and returns to main. */
export function pushOnto(repository: string, branch: string, text: string, file = 'page.mdx'): string {
  git(repository, 'checkout', '-q', branch);
  writeFileSync(join(repository, file), text);
  git(repository, 'add', '-A');
  git(repository, 'commit', '-q', '-m', `Write ${text.trim()}`);
  const commit = git(repository, 'rev-parse', 'HEAD');
  git(repository, 'checkout', '-q', 'main');
  return commit;
}
