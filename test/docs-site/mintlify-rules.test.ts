import { afterAll, describe, expect, test } from 'vitest';
import { ToolWorkerPool } from '../../src/agent/tools/tool-worker-pool.js';
import { SiteFixture, problemsOf } from './site-fixture.js';

// Fixture sites written for these tests: each Mintlify rule gets a link or entry that
// must pass and a real breakage that must still be reported.
const workers = new ToolWorkerPool();
afterAll(() => workers.close());

async function check(files: Record<string, string>): Promise<string[]> {
  const fixture = new SiteFixture(files);
  try {
    return await problemsOf(fixture, workers);
  } finally {
    fixture.remove();
  }
}

const docsJson = (config: object): string => `${JSON.stringify({ name: 'Fixture', ...config }, null, 2)}\n`;

describe('Mintlify rules', () => {
  test('redirects, with wildcards and from a $ref file: a redirected link whose destination exists passes', async () => {
    const problems = await check({
      'docs.json': docsJson({
        navigation: { pages: ['index', 'v2/intro', 'new/page'] },
        redirects: { $ref: './redirects.json' },
      }),
      'redirects.json': JSON.stringify([
        { source: '/beta/:slug*', destination: '/v2/:slug*' },
        { source: '/articles/concepts-*', destination: '/new/page' },
        { source: '/old-page', destination: '/new/page#top' },
        { source: '/gone', destination: '/nowhere' },
        { source: '/external', destination: 'https://example.com/docs' },
      ]),
      'index.mdx': [
        '# Home',
        '',
        '[a](/beta/intro) [b](/articles/concepts-x) [c](/old-page) [d](/external)',
        '',
        '[broken wildcard](/beta/missing)',
        '',
        '[broken destination](/gone)',
        '',
      ].join('\n'),
      'v2/intro.mdx': '# Intro\n',
      'new/page.mdx': '# New\n',
    });
    expect(problems).toEqual([
      'index.mdx:5 broken-link Link "/beta/missing" is redirected to "/v2/missing", which does not exist.',
      'index.mdx:7 broken-link Link "/gone" is redirected to "/nowhere", which does not exist.',
    ]);
  });

  test('.mintignore: ignored files are neither checked nor link targets', async () => {
    const problems = await check({
      'docs.json': docsJson({ navigation: { pages: ['index'] } }),
      '.mintignore': '# drafts are not published\ndrafts/\n*.wip.mdx\n!keep.wip.mdx\n',
      'index.mdx': '# Home\n\n[kept](/keep.wip)\n\n[draft](/drafts/plan)\n',
      'drafts/plan.mdx': '# Plan\n\n<Unclosed>\n\n[x](/nowhere)\n',
      'notes.wip.mdx': '[x](/nowhere)\n',
      'keep.wip.mdx': '# Kept\n',
    });
    expect(problems).toEqual(['index.mdx:5 broken-link Link "/drafts/plan" does not point to an existing page or file.']);
  });

  test("versions and languages: an unprefixed link reaches the default version or language, or the page's own", async () => {
    const problems = await check({
      'docs.json': docsJson({
        navigation: {
          languages: [
            {
              language: 'en',
              default: true,
              versions: [
                { version: 'v1', pages: ['en/v1/quickstart', 'en/v1/legacy'] },
                { version: 'v2', default: true, pages: ['en/v2/quickstart', 'en/v2/setup'] },
              ],
            },
            { language: 'es', versions: [{ version: 'v2', pages: ['es/v2/quickstart', 'es/v2/setup'] }] },
          ],
        },
      }),
      'en/v1/quickstart.mdx': '# v1\n\n[setup](/setup) [legacy](/legacy)\n',
      'en/v1/legacy.mdx': '# Legacy\n',
      'en/v2/quickstart.mdx': '# v2\n\n[setup](/setup) [explicit](/en/v2/setup)\n\n[missing](/nowhere)\n',
      'en/v2/setup.mdx': '# Setup\n',
      'es/v2/quickstart.mdx': '# Inicio\n\n[setup](/setup)\n\n[no existe](/legacy-es)\n',
      'es/v2/setup.mdx': '# Configuración\n',
    });
    expect(problems).toEqual([
      'en/v2/quickstart.mdx:5 broken-link Link "/nowhere" does not point to an existing page or file.',
      'es/v2/quickstart.mdx:5 broken-link Link "/legacy-es" does not point to an existing page or file.',
    ]);
  });

  test('pages generated from an OpenAPI spec declared on a tab are link targets', async () => {
    const spec = {
      openapi: '3.1.0',
      info: { title: 'Plants', version: '1' },
      paths: {
        '/users/{id}': { get: { tags: ['Users'], summary: 'Get user' } },
        '/plants': { post: { tags: ['Plants'], summary: 'Create a plant' } },
      },
    };
    const problems = await check({
      'docs.json': docsJson({
        navigation: {
          tabs: [
            { tab: 'Guides', pages: ['index'] },
            { tab: 'API', openapi: 'api/openapi.json' },
            { tab: 'Admin', openapi: { source: 'https://example.com/admin.json', directory: 'admin-api' } },
          ],
        },
      }),
      'api/openapi.json': JSON.stringify(spec),
      'index.mdx': [
        '# Home',
        '',
        '[get](/api-reference/users/get-user) [create](/api-reference/plants/create-a-plant) [remote](/admin-api/anything)',
        '',
        '[missing](/api-reference/users/delete-user)',
        '',
      ].join('\n'),
    });
    expect(problems).toEqual(['index.mdx:5 broken-link Link "/api-reference/users/delete-user" does not point to an existing page or file.']);
  });

  test('custom heading ids and LaTeX are valid Mintlify MDX; a real syntax error is still reported with its line', async () => {
    const problems = await check({
      'docs.json': docsJson({ navigation: { pages: ['math', 'broken'] } }),
      'math.mdx': [
        '---',
        'title: Math',
        '---',
        '',
        '## Installation {#install}',
        '',
        'Inline $\\frac{a}{b}$ and a block:',
        '',
        '$$',
        'x = {y \\over z}',
        '$$',
        '',
        '[jump](#install)',
        '',
      ].join('\n'),
      'broken.mdx': ['# Broken', '', 'Text', '', '{1 +}', ''].join('\n'),
    });
    expect(problems).toEqual([expect.stringMatching(/^broken\.mdx:5 mdx-syntax MDX syntax error: Could not parse expression/)]);
  });

  test('navigation split into $ref files is checked, at the line of the file the entry is in', async () => {
    const navigation = `{\n  "groups": [\n    { "group": "Guides", "pages": ["guides/a", "guides/missing"] }\n  ]\n}\n`;
    const problems = await check({
      'docs.json': docsJson({ navigation: { $ref: './navigation/guides.json' } }),
      'navigation/guides.json': navigation,
      'guides/a.mdx': '# A\n',
    });
    expect(problems).toEqual([
      'navigation/guides.json:3 navigation Navigation page "guides/missing" does not exist (expected guides/missing.mdx or guides/missing.md).',
    ]);
  });

  test('in a monorepo the docs root is the folder holding docs.json: files outside are not pages', async () => {
    const problems = await check({
      'README.md': '# Repo\n\n[not a page](/nowhere)\n',
      'packages/app/notes.md': '<Broken\n',
      'docs/docs.json': docsJson({ navigation: { pages: ['index', 'guides/a'] } }),
      'docs/index.mdx': '# Home\n\n[a](/guides/a) [rel](guides/a)\n\n[repo readme](../README.md)\n',
      'docs/guides/a.mdx': '# A\n\n[home](/) [missing](/guides/b)\n',
    });
    expect(problems).toEqual([
      'docs/guides/a.mdx:3 broken-link Link "/guides/b" does not point to an existing page or file.',
      'docs/index.mdx:5 broken-link Link "../README.md" points outside the docs site.',
    ]);
  });

  test('snippets are not pages: their links are not checked and they are not link targets', async () => {
    const problems = await check({
      'docs.json': docsJson({ navigation: { pages: ['index'] } }),
      'snippets/card.mdx': '[relative to the importing page](../index)\n',
      'index.mdx': '# Home\n\n[snippet](/snippets/card)\n',
    });
    expect(problems).toEqual(['index.mdx:3 broken-link Link "/snippets/card" does not point to an existing page or file.']);
  });
});
