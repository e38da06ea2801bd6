import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { DocwrightError } from '../../src/core/errors.js';
import { refNameProblem, validateRefName } from '../../src/git/ref-name.js';
import { validateRemoteUrl } from '../../src/git/remote-url.js';

/** The reference implementation: git's own check, one-level names allowed. */
function gitAccepts(name: string): boolean {
  try {
    execFileSync('git', ['check-ref-format', '--allow-onelevel', `refs/heads/${name}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe('refNameProblem', () => {
  test.each(['main', 'docwright/0b7c2f3e', 'release/v1.2', 'feature_x-y', 'a/b/c', 'ünïcode'])('accepts %j', (name) => {
    expect(refNameProblem(name)).toBeNull();
    expect(gitAccepts(name)).toBe(true);
  });

  test.each([
    '',
    '-rf',
    '--force',
    'a..b',
    'a b',
    'a~1',
    'a^',
    'a:b',
    'a?',
    'a*',
    'a[',
    'a\\b',
    '/a',
    'a/',
    'a//b',
    'a.',
    '.a',
    'a/.b',
    'a.lock',
    'a/b.lock/c',
    'a@{1}',
    '@',
    'tab\there',
  ])('rejects %j', (name) => {
    expect(refNameProblem(name)).not.toBeNull();
  });

  // Ours is stricter in two ways: no leading "-" (option injection), and not "@" (git reads it as HEAD).
  test('agrees with git check-ref-format on generated names, plus our two extra rules', () => {
    const alphabet = fc.constantFrom('a', 'b', '.', '/', '-', '@', '{', '~', ' ', 'l', 'o', 'c', 'k', '*', ':', '\\');
    fc.assert(
      fc.property(
        fc.array(alphabet, { minLength: 1, maxLength: 8 }).map((characters) => characters.join('')),
        (name) => {
          const ours = refNameProblem(name) === null;
          const expected = gitAccepts(name) && !name.startsWith('-') && name !== '@';
          expect(ours, name).toBe(expected);
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('validateRefName and validateRemoteUrl', () => {
  test('strip refs/heads/ and refs/tags/, and report the field on failure', () => {
    expect(validateRefName('refs/heads/main', 'baseRef')).toBe('main');
    expect(validateRefName('refs/tags/v1', 'baseRef')).toBe('v1');
    let caught: unknown;
    try {
      validateRefName('-x', 'branch');
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(DocwrightError);
    expect((caught as DocwrightError).errors).toEqual([{ path: 'branch', message: 'must not start with "-"' }]);
  });

  test('pins a relative path to the current directory', () => {
    expect(validateRemoteUrl('./docs')).toBe(`${process.cwd()}/docs`);
  });

  test.each([
    '/srv/docs',
    'https://github.com/acme/docs.git',
    'file:///srv/docs.git',
    'git@github.com:acme/docs.git',
    'ssh://git@host:22/docs.git',
    'https://token@host/docs.git',
  ])('accepts remote %j', (url) => {
    expect(validateRemoteUrl(url)).toBe(url);
  });

  test.each(['', '-u', '--upload-pack=x', 'ext::sh -c x', 'fd::3', 'https://u:p@host/x.git', 'javascript://x', 'https://host/x\n.git'])(
    'rejects remote %j',
    (url) => {
      expect(() => validateRemoteUrl(url)).toThrow(DocwrightError);
    },
  );
});
