import { describe, expect, it } from 'vitest';
import { createMintIgnore, parseMintIgnore } from '../../src/docs-site/mint-ignore.js';

describe('createMintIgnore', () => {
  it('applies gitignore syntax relative to the docs root', () => {
    const ignores = createMintIgnore('# drafts\ndrafts/\n*.draft.mdx\n/internal.mdx\n!drafts/keep.mdx\n');
    expect(ignores('drafts/wip.mdx')).toBe(true);
    expect(ignores('guides/a.draft.mdx')).toBe(true);
    expect(ignores('internal.mdx')).toBe(true);
    expect(ignores('guides/internal.mdx')).toBe(false);
    expect(ignores('guides/intro.mdx')).toBe(false);
  });

  it('always ignores .git, .github, .claude, .agents and node_modules, even against a negation', () => {
    for (const text of [undefined, '', '!node_modules\n!.github/']) {
      const ignores = createMintIgnore(text);
      expect(ignores('node_modules/pkg/readme.md')).toBe(true);
      expect(ignores('sub/node_modules/x.mdx')).toBe(true);
      expect(ignores('.github/pull_request_template.md')).toBe(true);
      expect(ignores('.claude/notes.md')).toBe(true);
      expect(ignores('.agents/a.md')).toBe(true);
      expect(ignores('.git/HEAD')).toBe(true);
      expect(ignores('.gitbook/x.mdx')).toBe(false);
      expect(ignores('index.mdx')).toBe(false);
    }
  });

  it('answers false instead of throwing on paths outside the root or malformed', () => {
    const ignores = createMintIgnore('*');
    expect(ignores('../outside.mdx')).toBe(false);
    expect(ignores('')).toBe(false);
    expect(ignores('a/../../b.mdx')).toBe(false);
    expect(ignores('a\0b')).toBe(false);
    expect(ignores(42 as unknown as string)).toBe(false);
    expect(ignores('/rooted.mdx')).toBe(true);
  });

  it('caps the text, the pattern count and star-heavy patterns, and says what it left out', () => {
    const many = Array.from({ length: 3000 }, (_, index) => `dir-${index}/`).join('\n');
    const parsed = parseMintIgnore(many);
    expect(parsed.ignores('dir-5/a.mdx')).toBe(true);
    expect(parsed.ignores('dir-2500/a.mdx')).toBe(false);
    expect(parsed.skipped.join(' ')).toContain('more than 1000 patterns');
    const stars = parseMintIgnore(`${'*a'.repeat(20)}\n**/drafts/**/*.md*`);
    expect(stars.skipped).toHaveLength(1);
    expect(stars.ignores('x/drafts/y/z.mdx')).toBe(true);
    expect(parseMintIgnore('x'.repeat(70 * 1024)).skipped[0]).toContain('longer than');
  });

  it('stays fast on a hostile file of star-heavy patterns', () => {
    const hostile = Array.from({ length: 5000 }, (_, index) => `${'*a'.repeat(6)}*b${index}`).join('\n');
    const ignores = createMintIgnore(hostile);
    const started = performance.now();
    for (let index = 0; index < 100; index += 1) ignores(`${'a'.repeat(250)}/${index}.mdx`);
    expect((performance.now() - started) / 100).toBeLessThan(5);
  });
});
