import { describe, expect, it } from 'vitest';
import { buildSiteConfig } from '../../src/docs-site/site-config.js';
import type { SiteConfig } from '../../src/docs-site/site-config-types.js';

/** Runs the caller's loop: answer `needs` from `files` (absent → null) until done. */
function build(configPath: string, files: Record<string, string>): { config: SiteConfig; rounds: number } {
  const texts = new Map<string, string | null>();
  for (let rounds = 1; rounds <= 50; rounds += 1) {
    const result = buildSiteConfig(configPath, texts);
    if (result.done) return { config: result.config, rounds };
    expect(result.needs.length).toBeGreaterThan(0);
    for (const need of result.needs) {
      expect(texts.has(need)).toBe(false);
      texts.set(need, files[need] ?? null);
    }
  }
  throw new Error('buildSiteConfig never finished');
}

const json = (value: unknown): string => JSON.stringify(value, null, 2);

describe('buildSiteConfig: navigation and $ref', () => {
  it('reads docs.json navigation with pages, nested groups, group roots and tabs', () => {
    const { config } = build('docs/docs.json', {
      'docs/docs.json': json({
        navigation: {
          tabs: [
            { tab: 'Guides', groups: [{ group: 'Start', root: 'start/index', pages: ['index', '/quickstart', { group: 'Deep', pages: ['deep/a'] }] }] },
            { tab: 'API', menu: [{ item: 'Ref', pages: ['GET /users', 'openapi.json POST /pets', 'webhook /x', 'api/overview'] }] },
          ],
        },
      }),
    });
    expect(config.docsRoot).toBe('docs');
    expect(config.files).toEqual(['docs/docs.json']);
    expect(config.navigation.map((entry) => entry.page)).toEqual(['index', '/quickstart', 'deep/a', 'start/index', 'api/overview']);
    expect(config.navigation.every((entry) => entry.file === 'docs/docs.json' && typeof entry.line === 'number')).toBe(true);
    expect(config.problems).toEqual([]);
  });

  it('follows nested $refs relative to the referencing file, with lines in the file written in', () => {
    const { config, rounds } = build('docs.json', {
      'docs.json': '{\n  "navigation": { "$ref": "./config/navigation.json" }\n}',
      'config/navigation.json': '{\n  "groups": [\n    { "$ref": "groups/start.json" },\n    { "group": "Guides", "pages": ["guides/one"] }\n  ]\n}',
      'config/groups/start.json': '{\n  "group": "Start",\n\n  "pages": ["index"]\n}',
    });
    // One round for docs.json, one per level of $ref, one to finish.
    expect(rounds).toBe(4);
    expect(config.files).toEqual(['docs.json', 'config/navigation.json', 'config/groups/start.json']);
    expect(config.navigation).toEqual([
      { page: 'index', file: 'config/groups/start.json', line: 4 },
      { page: 'guides/one', file: 'config/navigation.json', line: 4 },
    ]);
    expect(config.problems).toEqual([]);
  });

  it('lays sibling keys of a $ref over the referenced object', () => {
    const { config } = build('docs.json', {
      'docs.json': json({ navigation: { groups: [{ $ref: 'group.json', pages: ['override'] }] } }),
      'group.json': json({ group: 'G', pages: ['original'], root: 'root-page' }),
    });
    expect(config.navigation.map((entry) => [entry.page, entry.file])).toEqual([
      ['override', 'docs.json'],
      ['root-page', 'group.json'],
    ]);
  });

  it('reports a $ref to a missing file in the file holding the $ref, at its line', () => {
    const { config } = build('docs.json', {
      'docs.json': '{\n  "navigation": { "$ref": "nav.json" }\n}',
      'nav.json': '{\n  "groups": [\n    { "$ref": "missing.json" }\n  ]\n}',
    });
    expect(config.problems).toEqual([{ path: 'nav.json', line: 3, kind: 'navigation', message: expect.stringContaining('missing.json') }]);
    expect(config.files).toEqual(['docs.json', 'nav.json']);
  });

  it('reports a $ref cycle once and still finishes', () => {
    const { config } = build('docs.json', {
      'docs.json': json({ navigation: { $ref: 'a.json' } }),
      'a.json': '{\n  "groups": [{ "$ref": "b.json" }],\n  "pages": ["a-page"]\n}',
      'b.json': '{\n  "group": "B",\n  "pages": [{ "$ref": "a.json" }, "b-page"]\n}',
    });
    const cycles = config.problems.filter((problem) => problem.message.includes('cycle'));
    expect(cycles).toEqual([{ path: 'b.json', line: 3, kind: 'navigation', message: expect.stringContaining('a.json → b.json → a.json') }]);
    expect(config.navigation.map((entry) => entry.page).sort()).toEqual(['a-page', 'b-page']);
  });

  it('refuses $refs that are URLs, absolute, outside the docs root or not JSON, without asking for them', () => {
    const texts = new Map<string, string | null>([
      [
        'docs/docs.json',
        json({
          navigation: {
            groups: [
              { $ref: 'https://evil.example/nav.json' },
              { $ref: '/etc/nav.json' },
              { $ref: '../outside.json' },
              { $ref: 'a/../../../x.json' },
              { $ref: 'nav.yaml' },
            ],
          },
        }),
      ],
    ]);
    const result = buildSiteConfig('docs/docs.json', texts);
    expect(result.done).toBe(true);
    if (!result.done) return;
    expect(result.config.problems.map((problem) => problem.message)).toEqual([
      expect.stringContaining('is a URL'),
      expect.stringContaining('is absolute'),
      expect.stringContaining('climbs out'),
      expect.stringContaining('climbs out'),
      expect.stringContaining('not a .json file'),
    ]);
    expect(result.config.problems.map((problem) => problem.line)).toEqual([5, 8, 11, 14, 17]);
  });

  it('reports invalid JSON with its line, in the $ref file it is in', () => {
    const { config } = build('docs.json', {
      'docs.json': json({ navigation: { $ref: 'nav.json' } }),
      'nav.json': '{\n  "groups": [\n    { "group": "x", }\n  ]\n}',
    });
    expect(config.problems).toEqual([{ path: 'nav.json', line: 3, kind: 'navigation', message: expect.stringContaining('not valid JSON') }]);
  });

  it('reports an unreadable config and one that is not an object', () => {
    expect(build('docs.json', {}).config.problems[0]).toMatchObject({ path: 'docs.json', kind: 'navigation' });
    expect(build('docs.json', { 'docs.json': '[1]' }).config.problems[0]!.message).toContain('does not hold a JSON object');
  });
});

describe('buildSiteConfig: redirects', () => {
  it('reads top-level redirects and redirects split into a $ref file, with lines there', () => {
    const { config } = build('docs.json', {
      'docs.json': json({ navigation: { pages: ['index'] }, redirects: { $ref: 'config/redirects.json' } }),
      'config/redirects.json': '[\n  { "source": "/beta/:slug*", "destination": "/v2/:slug*" },\n  { "source": "/old", "destination": "/new#part" }\n]',
    });
    expect(config.redirects).toEqual([
      { source: '/beta/:slug*', destination: '/v2/:slug*', file: 'config/redirects.json', line: 2 },
      { source: '/old', destination: '/new#part', file: 'config/redirects.json', line: 3 },
    ]);
  });

  it('reports redirects without strings, with an anchor or query in the source, or with two multi-segment wildcards', () => {
    const { config } = build('docs.json', {
      'docs.json':
        '{\n"redirects": [\n{ "source": "/a#b", "destination": "/c" },\n{ "source": "/d?e=1", "destination": "/f" },\n{ "source": "/g" },\n{ "source": "/:a*/x/:b*", "destination": "/h" },\n{ "source": "/ok", "destination": "/fine" }\n]\n}',
    });
    expect(config.redirects.map((rule) => rule.source)).toEqual(['/ok']);
    expect(config.problems.map((problem) => problem.line)).toEqual([3, 4, 5, 6]);
    expect(config.problems[3]!.message).toContain('more than one multi-segment wildcard');
  });

  it('caps redirects at 10,000 with a problem saying so', () => {
    const redirects = Array.from({ length: 10_050 }, (_, index) => ({ source: `/r${index}`, destination: `/d${index}` }));
    const { config } = build('docs.json', { 'docs.json': json({ redirects }) });
    expect(config.redirects).toHaveLength(10_000);
    expect(config.problems).toEqual([expect.objectContaining({ kind: 'limit', message: expect.stringContaining('more than 10000 redirects') })]);
  });
});

describe('buildSiteConfig: versions, languages and OpenAPI', () => {
  it('reads versions with a default flag and languages where the first is the default', () => {
    const { config } = build('docs.json', {
      'docs.json': json({
        navigation: {
          versions: [
            { version: 'v1', pages: ['v1/intro'] },
            {
              version: 'v2',
              default: true,
              languages: [
                { language: 'en', groups: [{ group: 'G', pages: ['v2/en/intro'] }] },
                { language: 'es', pages: ['v2/es/intro'] },
              ],
            },
          ],
        },
      }),
    });
    expect(config.variants).toEqual([
      { kind: 'version', name: 'v1', isDefault: false, pages: ['v1/intro'] },
      { kind: 'version', name: 'v2', isDefault: true, pages: ['v2/en/intro', 'v2/es/intro'] },
      { kind: 'language', name: 'en', isDefault: true, pages: ['v2/en/intro'] },
      { kind: 'language', name: 'es', isDefault: false, pages: ['v2/es/intro'] },
    ]);
  });

  it('reads openapi as a string, an array and an object, with the directory defaulted and lowercased', () => {
    const { config } = build('docs.json', {
      'docs.json': json({
        navigation: {
          tabs: [
            { tab: 'A', openapi: 'specs/a.yaml', pages: ['GET /a'] },
            { tab: 'B', groups: [{ group: 'B', openapi: ['specs/b1.json', 'https://example.com/b2.json'], pages: ['x'] }] },
            { tab: 'C', openapi: { source: 'specs/c.json', directory: '/API-Ref/' } },
            { tab: 'D', openapi: { directory: 'no-source' } },
          ],
        },
      }),
    });
    expect(config.openapi.map(({ source, directory }) => [source, directory])).toEqual([
      ['specs/a.yaml', 'api-reference'],
      ['specs/b1.json', 'api-reference'],
      ['https://example.com/b2.json', 'api-reference'],
      ['specs/c.json', 'api-ref'],
    ]);
    expect(config.openapi.every((declared) => declared.file === 'docs.json' && declared.line !== undefined)).toBe(true);
    expect(config.navigation.map((entry) => entry.page)).toEqual(['x']);
  });

  it('reads the legacy mint.json shape: navigation array, top-level versions, group version tags, top-level openapi', () => {
    const { config } = build('mint.json', {
      'mint.json': json({
        versions: ['v1', 'v2'],
        openapi: ['openapi.json'],
        navigation: [
          { group: 'Old', version: 'v1', pages: ['v1/intro', { group: 'Nested', pages: ['v1/nested'] }] },
          { group: 'New', version: 'v2', pages: ['v2/intro', 'POST /pets'] },
          { group: 'Shared', pages: ['shared'] },
          { group: 'Stray', version: 'v3', pages: ['v3/x'] },
        ],
        redirects: [{ source: '/a', destination: '/b' }],
      }),
    });
    expect(config.navigation.map((entry) => entry.page)).toEqual(['v1/intro', 'v1/nested', 'v2/intro', 'shared', 'v3/x']);
    expect(config.variants).toEqual([
      { kind: 'version', name: 'v1', isDefault: true, pages: ['v1/intro', 'v1/nested'] },
      { kind: 'version', name: 'v2', isDefault: false, pages: ['v2/intro'] },
      { kind: 'version', name: 'v3', isDefault: false, pages: ['v3/x'] },
    ]);
    expect(config.openapi).toEqual([{ source: 'openapi.json', directory: 'api-reference', file: 'mint.json', line: 7 }]);
    expect(config.redirects).toHaveLength(1);
  });
});

describe('buildSiteConfig: hostile input', () => {
  it('does not parse a config nested 100,000 levels deep', () => {
    const deep = `{"navigation":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    const started = performance.now();
    const { config } = build('docs.json', { 'docs.json': deep });
    expect(performance.now() - started).toBeLessThan(200);
    expect(config.problems).toEqual([expect.objectContaining({ kind: 'check-limit', message: expect.stringContaining('nests more than 64') })]);
  });

  it('caps navigation nesting reached through $ref files at 100 levels', () => {
    const files: Record<string, string> = { 'docs.json': json({ navigation: { $ref: 'n0.json' } }) };
    // Each file nests 10 levels and refers to the next: 30 files, 300 levels in all.
    for (let index = 0; index < 30; index += 1) {
      let node: unknown = { $ref: `n${index + 1}.json` };
      for (let level = 0; level < 5; level += 1) node = { groups: [node], pages: [`p${index}-${level}`] };
      files[`n${index}.json`] = json(node);
    }
    files['n30.json'] = json({ pages: ['bottom'] });
    const { config } = build('docs.json', files);
    expect(config.problems.map((problem) => problem.message)).toEqual([expect.stringContaining('more than 100 levels')]);
    expect(config.navigation.some((entry) => entry.page === 'bottom')).toBe(false);
  });

  it('caps a million navigation entries (split over $ref files) at 100,000 and answers quickly', () => {
    const files: Record<string, string> = { 'docs.json': json({ navigation: { groups: [0, 1, 2, 3].map((index) => ({ $ref: `part-${index}.json` })) } }) };
    for (let index = 0; index < 4; index += 1)
      files[`part-${index}.json`] = JSON.stringify({ group: 'big', pages: Array.from({ length: 250_000 }, () => 'a') });
    const started = performance.now();
    const { config } = build('docs.json', files);
    expect(performance.now() - started).toBeLessThan(3000);
    expect(config.navigation).toHaveLength(100_000);
    expect(config.problems).toEqual([expect.objectContaining({ kind: 'limit', message: expect.stringContaining('more than 100000 pages') })]);
  });

  it('refuses a config larger than 2 MiB instead of parsing it', () => {
    const text = JSON.stringify({ navigation: { pages: Array.from({ length: 1_000_000 }, (_, index) => `p${index}`) } });
    const { config } = build('docs.json', { 'docs.json': text });
    expect(config.problems).toEqual([expect.objectContaining({ kind: 'check-limit', message: expect.stringContaining('larger than') })]);
  });

  it('bounds exponential $ref fan-out', () => {
    const files: Record<string, string> = { 'docs.json': json({ navigation: { $ref: 'f0.json' } }) };
    for (let index = 0; index < 20; index += 1) {
      files[`f${index}.json`] = json({ groups: Array.from({ length: 10 }, () => ({ $ref: `f${index + 1}.json` })), pages: [`page-${index}`] });
    }
    files['f20.json'] = json({ pages: ['leaf'] });
    const started = performance.now();
    const { config } = build('docs.json', files);
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(config.problems.some((problem) => problem.kind === 'limit')).toBe(true);
    expect(config.navigation.length).toBeLessThanOrEqual(100_000);
  });

  it('reads at most 200 $ref files', () => {
    const files: Record<string, string> = {
      'docs.json': json({ navigation: { groups: Array.from({ length: 300 }, (_, index) => ({ $ref: `g/${index}.json` })) } }),
    };
    for (let index = 0; index < 300; index += 1) files[`g/${index}.json`] = json({ group: `${index}`, pages: [`p${index}`] });
    const { config } = build('docs.json', files);
    expect(config.files).toHaveLength(200);
    expect(config.problems).toEqual([expect.objectContaining({ kind: 'limit', message: expect.stringContaining('more than 200 files') })]);
  });

  it('keeps `..` names that stay inside the root and refuses ones that leave it', () => {
    const { config } = build('docs/docs.json', {
      'docs/docs.json': json({ navigation: { groups: [{ $ref: 'a/../nav..x.json' }, { $ref: 'a/../../nav..x.json' }] } }),
      'docs/nav..x.json': json({ pages: ['..weird/page', '../outside'] }),
    });
    expect(config.files).toEqual(['docs/docs.json', 'docs/nav..x.json']);
    expect(config.problems.map((problem) => problem.message)).toEqual([expect.stringContaining('climbs out')]);
    // Navigation strings are kept as written: the resolver judges `../outside`.
    expect(config.navigation.map((entry) => entry.page)).toEqual(['..weird/page', '../outside']);
  });

  it('never throws on odd values', () => {
    for (const text of [
      'null',
      '"x"',
      '{"navigation": 5, "redirects": "no"}',
      '{"navigation": {"pages": [null, 1, true, {}, []]}, "redirects": [null, 1]}',
      '{"navigation": {"versions": [1, {"version": 2}, {"version": "v"}]}}',
      '\uFEFF{"navigation": {"pages": ["bom"]}}',
      '{"$ref": "docs.json"}',
    ]) {
      const { config } = build('docs.json', { 'docs.json': text });
      expect(Array.isArray(config.problems)).toBe(true);
    }
  });
});
