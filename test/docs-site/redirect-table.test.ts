import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { RedirectTable } from '../../src/docs-site/redirect-table.js';

describe('RedirectTable', () => {
  it('resolves exact sources, ignoring trailing and doubled slashes', () => {
    const table = new RedirectTable([{ source: '/source/path/', destination: '/destination/path' }]);
    expect(table.resolve('/source/path')).toBe('/destination/path');
    expect(table.resolve('/source//path/')).toBe('/destination/path');
    expect(table.resolve('/source')).toBeUndefined();
    expect(table.resolve('/source/path/more')).toBeUndefined();
    expect(table.size).toBe(1);
  });

  it('substitutes a :slug* wildcard, including zero segments', () => {
    const table = new RedirectTable([{ source: '/beta/:slug*', destination: '/v2/:slug*' }]);
    expect(table.resolve('/beta/introduction')).toBe('/v2/introduction');
    expect(table.resolve('/beta/a/b/c')).toBe('/v2/a/b/c');
    expect(table.resolve('/beta')).toBe('/v2/');
    expect(table.resolve('/alpha/introduction')).toBeUndefined();
  });

  it('needs at least one segment for :slug+', () => {
    const table = new RedirectTable([{ source: '/beta/:slug+', destination: '/v2/:slug+' }]);
    expect(table.resolve('/beta/x/y')).toBe('/v2/x/y');
    expect(table.resolve('/beta')).toBeUndefined();
  });

  it('matches :param against exactly one segment', () => {
    const table = new RedirectTable([{ source: '/guides/:name/setup', destination: '/setup/:name' }]);
    expect(table.resolve('/guides/python/setup')).toBe('/setup/python');
    expect(table.resolve('/guides/a/b/setup')).toBeUndefined();
    expect(table.resolve('/guides/setup')).toBeUndefined();
  });

  it('matches a partial wildcard segment by prefix and substitutes the captured rest', () => {
    const table = new RedirectTable([
      { source: '/articles/concepts-*', destination: '/collections/overview' },
      { source: '/old/article-*', destination: '/new/article-*' },
    ]);
    expect(table.resolve('/articles/concepts-getting-started')).toBe('/collections/overview');
    expect(table.resolve('/articles/other')).toBeUndefined();
    expect(table.resolve('/articles/concepts-x/deeper')).toBeUndefined();
    expect(table.resolve('/old/article-123')).toBe('/new/article-123');
  });

  it('prefers exact rules, then the first pattern in file order across index buckets', () => {
    const table = new RedirectTable([
      { source: '/:any*', destination: '/catch-all/:any*' },
      { source: '/docs/:page', destination: '/second/:page' },
      { source: '/docs/exact', destination: '/exact' },
    ]);
    expect(table.resolve('/docs/exact')).toBe('/exact');
    expect(table.resolve('/docs/other')).toBe('/catch-all/docs/other');
  });

  it('returns absolute URL destinations as written, substituting only captured names', () => {
    const table = new RedirectTable([
      { source: '/ext/:path*', destination: 'https://example.com:8080/:path*' },
      { source: '/plain', destination: 'https://example.com/a#b' },
    ]);
    expect(table.resolve('/ext/a/b')).toBe('https://example.com:8080/a/b');
    expect(table.resolve('/plain')).toBe('https://example.com/a#b');
  });

  it('leaves out sources with two multi-segment wildcards and overlong rules, never throwing', () => {
    const table = new RedirectTable([
      { source: '/:a*/x/:b*', destination: '/y' },
      { source: `/${'a'.repeat(5000)}`, destination: '/z' },
      { source: 7 as unknown as string, destination: '/n' },
    ]);
    expect(table.size).toBe(0);
    expect(table.unsupported).toHaveLength(2);
    expect(table.resolve('/a/x/b')).toBeUndefined();
    expect(table.resolve('x'.repeat(100_000))).toBeUndefined();
  });

  it('supports a multi-segment wildcard in the middle, matched front and back', () => {
    const table = new RedirectTable([{ source: '/api/:rest*/schema', destination: '/schemas/:rest' }]);
    expect(table.resolve('/api/a/b/schema')).toBe('/schemas/a/b');
    expect(table.resolve('/api/schema')).toBe('/schemas/');
    expect(table.resolve('/api/a/b')).toBeUndefined();
  });

  it('resolves against 10,000 pattern rules in well under a millisecond per path', () => {
    const rules = Array.from({ length: 10_000 }, (_, index) => ({ source: `/section-${index}/:slug*`, destination: `/moved-${index}/:slug*` }));
    const table = new RedirectTable(rules);
    const started = performance.now();
    for (let index = 0; index < 1000; index += 1) expect(table.resolve(`/section-${index * 7}/page`)).toBe(`/moved-${index * 7}/page`);
    expect((performance.now() - started) / 1000).toBeLessThan(1);
  });

  it('stays linear on a deep path against a long wildcard rule', () => {
    const table = new RedirectTable([{ source: `/${Array.from({ length: 500 }, (_, i) => `:p${i}`).join('/')}/:rest*/end`, destination: '/x' }]);
    const started = performance.now();
    expect(table.resolve(`/${'a/'.repeat(4000)}nope`)).toBeUndefined();
    expect(performance.now() - started).toBeLessThan(50);
  });
});

/**
 * A brute-force oracle: backtracking over the source's segments, with no indexing and no
 * front/back split, written apart from the table's matcher.
 */
function oracle(rules: ReadonlyArray<{ source: string; destination: string }>, sitePath: string): string | undefined {
  const path = sitePath.split('/').filter(Boolean);
  const isPattern = (source: string): boolean => source.includes(':') || source.includes('*');
  const ordered = [...rules.filter((rule) => !isPattern(rule.source)), ...rules.filter((rule) => isPattern(rule.source))];
  for (const rule of ordered) {
    const pattern = rule.source.split('/').filter(Boolean);
    const found = matchAll(pattern, 0, path, 0, {}, []);
    if (found === undefined) continue;
    let destination = rule.destination;
    for (const [name, value] of Object.entries(found.params)) destination = destination.split(`:${name}*`).join(value).split(`:${name}`).join(value);
    for (const star of found.stars) destination = destination.replace('*', star);
    return destination;
  }
  return undefined;
}

function matchAll(
  pattern: string[],
  i: number,
  path: string[],
  j: number,
  params: Record<string, string>,
  stars: string[],
): { params: Record<string, string>; stars: string[] } | undefined {
  if (i === pattern.length) return j === path.length ? { params, stars } : undefined;
  const segment = pattern[i]!;
  if (segment.startsWith(':') && segment.endsWith('*')) {
    for (let k = j; k <= path.length; k += 1) {
      const found = matchAll(pattern, i + 1, path, k, { ...params, [segment.slice(1, -1)]: path.slice(j, k).join('/') }, stars);
      if (found) return found;
    }
    return undefined;
  }
  if (j >= path.length) return undefined;
  if (segment.startsWith(':')) return matchAll(pattern, i + 1, path, j + 1, { ...params, [segment.slice(1)]: path[j]! }, stars);
  if (segment.endsWith('*')) {
    const prefix = segment.slice(0, -1);
    return path[j]!.startsWith(prefix) ? matchAll(pattern, i + 1, path, j + 1, params, [...stars, path[j]!.slice(prefix.length)]) : undefined;
  }
  return segment === path[j] ? matchAll(pattern, i + 1, path, j + 1, params, stars) : undefined;
}

describe('RedirectTable against a brute-force oracle', () => {
  it('agrees on random rules and paths', () => {
    const literal = fc.constantFrom('a', 'b', 'ab');
    const sourceSegment = fc.oneof(literal, fc.constantFrom(':p', ':q', 'a*', '*'));
    const rule = fc.record({ segments: fc.array(sourceSegment, { maxLength: 3 }), rest: fc.constantFrom(undefined, 0, 1, 2, 3) }).map(({ segments, rest }) => {
      const parts: string[] = [...segments];
      if (rest !== undefined) parts.splice(Math.min(rest, parts.length), 0, ':r*');
      // Names must be distinct for the oracle's plain replacement to be meaningful.
      const seen = new Set<string>();
      const unique = parts.filter((part) => !part.startsWith(':') || (!seen.has(part) && seen.add(part)));
      const names = unique.filter((part) => part.startsWith(':')).map((part) => part.replace('*', ''));
      const stars = unique.filter((part) => !part.startsWith(':') && part.endsWith('*')).length;
      const destination = `/d/${[...names.map((name) => (name === ':r' ? ':r*' : name)), ...Array.from({ length: stars }, () => 'x*')].join('/')}`;
      return { source: `/${unique.join('/')}`, destination };
    });
    fc.assert(
      fc.property(fc.array(rule, { maxLength: 6 }), fc.array(fc.constantFrom('a', 'b', 'ab', 'aa', 'c'), { maxLength: 5 }), (rules, path) => {
        const sitePath = `/${path.join('/')}`;
        expect(new RedirectTable(rules).resolve(sitePath)).toBe(oracle(rules, sitePath));
      }),
      { numRuns: 2000 },
    );
  });
});
