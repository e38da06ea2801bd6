import { mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { mkdtempSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { compileGlob, MAX_ALTERNATIVES } from '../../../src/agent/tools/glob-pattern.js';
import { globWorkspace } from '../../../src/agent/tools/workspace-glob.js';
import { isToolFailure } from '../../../src/agent/tools/tool-failure.js';

/**
 * An independent oracle for patterns without braces or classes: plain recursion over
 * segments (exponential in the worst case, fine for the small inputs here), each segment
 * a regular expression.
 */
function oracle(pattern: string, candidate: string): boolean {
  const segments = pattern.split('/').filter((segment) => segment !== '' && segment !== '.');
  const segmentRegex = (segment: string): RegExp =>
    new RegExp(
      `^${Array.from(segment)
        .map((character) => (character === '*' ? '.*' : character === '?' ? '.' : character.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
        .join('')}$`,
      's',
    );
  const match = (rest: string[], names: string[]): boolean => {
    if (rest.length === 0) return names.length === 0;
    const [first, ...others] = rest;
    if (first === '**') return match(others, names) || (names.length > 0 && match(rest, names.slice(1)));
    return names.length > 0 && segmentRegex(first!).test(names[0]!) && match(others, names.slice(1));
  };
  return match(segments, candidate.split('/'));
}

describe('compileGlob', () => {
  it.each([
    ['**/*.md', 'a.md', true],
    ['**/*.md', 'docs/guide/a.md', true],
    ['**/*.md', 'docs/a.mdx', false],
    ['*.md', 'docs/a.md', false],
    ['docs/*.mdx', 'docs/a.mdx', true],
    ['docs/**', 'docs/a/b/c.png', true],
    ['docs/**', 'docs', true],
    ['**', '.github/workflows/ci.yml', true],
    ['.github/**', '.github/workflows/ci.yml', true],
    ['*', '.env', true],
    ['**/*.{png,svg}', 'img/logo.svg', true],
    ['**/*.{png,svg}', 'img/logo.jpg', false],
    ['{a,b/{c,d}}/x', 'b/d/x', true],
    ['file[0-9].md', 'file7.md', true],
    ['file[!0-9].md', 'file7.md', false],
    ['file[^0-9].md', 'fileA.md', true],
    ['a?c', 'abc', true],
    ['a?c', 'a/c', false],
    ['\\*.md', '*.md', true],
    ['\\*.md', 'x.md', false],
    ['[abc', '[abc', true],
    ['{a', '{a', true],
    ['**/Dockerfile*', 'deploy/Dockerfile.prod', true],
    ['**/**/**/x', 'x', true],
    ['a**b', 'axxb', true],
    ['naïve/*', 'naïve/ü.md', true],
  ])('%s against %s is %s', (pattern, candidate, expected) => {
    expect(compileGlob(pattern).matches(candidate)).toBe(expected);
  });

  it('exposes the literal prefix and depth a crawler can use', () => {
    expect(compileGlob('docs/guides/*.mdx')).toMatchObject({ literalPrefix: 'docs/guides', maxDepth: 3 });
    expect(compileGlob('docs/**/*.mdx')).toMatchObject({ literalPrefix: 'docs', maxDepth: Infinity });
    expect(compileGlob('{docs,api}/x/*.md')).toMatchObject({ literalPrefix: '', maxDepth: 3 });
    expect(compileGlob('docs/{a,b}.md')).toMatchObject({ literalPrefix: 'docs' });
    expect(compileGlob('README.md')).toMatchObject({ literalPrefix: '', maxDepth: 1 });
  });

  it('refuses brace groups that expand beyond the cap', () => {
    const pattern = '{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}';
    expect(2 ** 7).toBeGreaterThan(MAX_ALTERNATIVES);
    expect(() => compileGlob(pattern)).toThrow(/alternatives/);
  });

  it('agrees with a regular-expression oracle on generated patterns and paths', () => {
    const name = fc.stringMatching(/^[ab.]{1,4}$/).filter((value) => value !== '.' && value !== '..');
    const segment = fc.oneof(
      fc.stringMatching(/^[ab.*?]{1,4}$/).filter((value) => value !== '**'),
      fc.constant('**'),
      fc.constant('*'),
    );
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 4 }), fc.array(name, { minLength: 1, maxLength: 4 }), (segments, names) => {
        const pattern = segments.join('/');
        const candidate = names.join('/');
        expect(compileGlob(pattern).matches(candidate)).toBe(oracle(pattern, candidate));
      }),
      { numRuns: 3000 },
    );
  });

  it('matches a pathological pattern against a long name in linear-ish time', () => {
    const pattern = `${'*a'.repeat(200)}*b`;
    const started = performance.now();
    expect(compileGlob(pattern).matches('a'.repeat(250))).toBe(false);
    expect(compileGlob(`**/${pattern}`).matches(`${'a/'.repeat(100)}${'a'.repeat(250)}`)).toBe(false);
    // picomatch needed 0.8 s for ten stars and 30 characters; this is 200 stars and 250.
    expect(performance.now() - started).toBeLessThan(1_000);
  });
});

describe('globWorkspace with hostile patterns', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'docwright-glob-'));
  afterAll(() => rm(root, { recursive: true, force: true }));

  it('answers the ten-star pattern at once', async () => {
    await mkdir(path.join(root, 'docs'), { recursive: true });
    await writeFile(path.join(root, 'a'.repeat(40)), 'x');
    await writeFile(path.join(root, 'docs', 'intro.md'), 'x');
    const started = performance.now();
    const found = await globWorkspace(root, '*a*a*a*a*a*a*a*a*a*a*b', { maxPatternLength: 1000 });
    expect(found).toEqual([]);
    expect(performance.now() - started).toBeLessThan(2_000);
    expect(await globWorkspace(root, `*${'a*'.repeat(20)}`, { maxPatternLength: 1000 })).toEqual(['a'.repeat(40)]);
    expect(await globWorkspace(root, 'docs/*.md', { maxPatternLength: 1000 })).toEqual(['docs/intro.md']);
  });

  it('treats an escaped dot segment as the directory itself, so paths never start with ./', async () => {
    await mkdir(path.join(root, 'docs'), { recursive: true });
    await writeFile(path.join(root, 'docs', 'intro.md'), 'x');
    expect(compileGlob('\\./docs/*.md')).toMatchObject({ literalPrefix: 'docs', maxDepth: 2 });
    expect(await globWorkspace(root, '\\./docs/*.md', { maxPatternLength: 1000 })).toEqual(['docs/intro.md']);
    expect(await globWorkspace(root, 'docs/\\./*.md', { maxPatternLength: 1000 })).toEqual(['docs/intro.md']);
  });

  it('never crawls outside the workspace through a literal prefix that expands to ..', async () => {
    expect(
      await globWorkspace(root, '{..,..}/**', { maxPatternLength: 1000 }).catch((error: unknown) =>
        isToolFailure(error) ? [] : Promise.reject(error as Error),
      ),
    ).toEqual([]);
  });

  it('stops matching at the time budget with a message for the model', async () => {
    for (let index = 0; index < 300; index += 1) await writeFile(path.join(root, `${'a'.repeat(240)}${index}`), 'x');
    // The greedy matcher's worst case: one star, then a long literal that almost matches everywhere.
    const pattern = `*${'a'.repeat(400)}b`;
    // 300 names × 240 start positions × up to 240 comparisons cannot finish within the first 10 ms slice.
    const failure = await globWorkspace(root, pattern, { maxPatternLength: 1000, timeoutMs: 1 }).catch((error: unknown) => error);
    expect(isToolFailure(failure)).toBe(true);
    expect((failure as Error).message).toMatch(/longer than 1 ms/);
  });
});
