import { validationFailed } from '../core/errors.js';

/**
 * Branch and ref names, checked against the rules of `git check-ref-format` (one-level
 * names allowed) plus one of ours: no leading `-`, so a name can never be read as an option.
 * Returns the reason it is invalid, or null.
 */
export function refNameProblem(name: string): string | null {
  if (name.length === 0) return 'must not be empty';
  if (name.length > 255) return 'must be at most 255 characters';
  if (name.startsWith('-')) return 'must not start with "-"';
  if (name === '@') return 'must not be "@"';
  if (/[\u0000-\u0020\u007f~^:?*[\\]/.test(name)) return 'must not contain spaces, control characters or any of ~ ^ : ? * [ \\';
  if (name.includes('..')) return 'must not contain ".."';
  if (name.includes('@{')) return 'must not contain "@{"';
  if (name.startsWith('/') || name.endsWith('/') || name.includes('//')) return 'must not start or end with "/" or contain "//"';
  if (name.endsWith('.')) return 'must not end with "."';
  for (const component of name.split('/')) {
    if (component.startsWith('.')) return 'no path component may start with "."';
    if (component.endsWith('.lock')) return 'no path component may end with ".lock"';
  }
  return null;
}

/** The short branch or tag name: `refs/heads/main` and `main` both give `main`. */
export function validateRefName(name: string, field: string): string {
  const short = name.replace(/^refs\/(?:heads|tags)\//, '');
  const problem = refNameProblem(short);
  if (problem !== null) {
    throw validationFailed(`Invalid git ref ${JSON.stringify(name)} for ${field}: ${problem}.`, [{ path: field, message: problem }]);
  }
  return short;
}
