import { execFileSync } from 'node:child_process';

/**
 * The commit the figures belong to, and whether the working tree differed from it
 * (several people work in one tree, so a run may measure code not yet committed).
 */
export function describeSourceVersion(directory: string): string {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: directory, encoding: 'utf8' }).trim();
    const changed = execFileSync('git', ['status', '--porcelain', '--untracked-files=no', '--', ':(top)src', ':(top)migrations'], {
      cwd: directory,
      encoding: 'utf8',
    }).trim();
    return changed === '' ? `commit ${commit}` : `commit ${commit} + uncommitted changes to ${changed.split('\n').length} file(s) under src/ or migrations/`;
  } catch {
    return 'unknown source version (not a git checkout)';
  }
}
