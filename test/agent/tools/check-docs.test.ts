import { afterAll, afterEach, beforeEach, describe, expect, test } from 'vitest';
import { checkDocs, createToolContext, ToolWorkerPool, type DocsProblem, type ToolContext } from '../../../src/agent/tools/index.js';
import { createTemporaryWorkspace, type TemporaryWorkspace } from './temporary-workspace.js';

let fixture: TemporaryWorkspace;
let context: ToolContext;
// Shared by the tests: starting a worker thread takes about a second.
const workers = new ToolWorkerPool();

beforeEach(async () => {
  fixture = await createTemporaryWorkspace();
  context = createToolContext({ workspace: fixture.workspace, workers });
});

afterEach(async () => {
  await fixture.remove();
});

afterAll(() => workers.close());

const sorted = (problems: DocsProblem[]): DocsProblem[] =>
  [...problems].sort((left, right) => (left.path < right.path ? -1 : left.path > right.path ? 1 : (left.line ?? 0) - (right.line ?? 0)));

describe('check_docs', () => {
  test('a clean site has no problems', async () => {
    await fixture.put('docs.json', JSON.stringify({ name: 'Acme', navigation: { groups: [{ group: 'Start', pages: ['index', 'guides/setup'] }] } }));
    await fixture.put('index.mdx', '---\ntitle: Home\n---\n\nSee [setup](/guides/setup) and <Card href="/guides/setup">x</Card>.\n');
    await fixture.put('guides/setup.md', '# Setup\n\nBack [home](../index.mdx) or [top](#setup).\n');
    expect(await checkDocs(context)).toEqual({ newProblems: [], preExisting: { total: 0, byKind: {} }, pagesChecked: 2, truncated: false });
  });

  test('reports MDX syntax errors with their line', async () => {
    await fixture.put('broken.mdx', '---\ntitle: Broken\n---\n\n# Heading\n\n<Note>\nUnclosed note\n</Warning>\n');
    await fixture.put('expression.mdx', 'Text\n\n{1 +}\n');
    const { newProblems: problems } = await checkDocs(context);
    expect(sorted(problems)).toEqual([
      { path: 'broken.mdx', line: 9, kind: 'mdx-syntax', message: expect.stringMatching(/^MDX syntax error: Unexpected closing tag `<\/Warning>`/) },
      { path: 'expression.mdx', line: 3, kind: 'mdx-syntax', message: expect.stringMatching(/^MDX syntax error: Could not parse expression/) },
    ]);
  });

  test('frontmatter is not mistaken for MDX, and invalid YAML is reported at its line', async () => {
    await fixture.put('braces.mdx', '---\ntitle: Uses {braces} freely\n---\n\n# Fine\n');
    await fixture.put('bad-yaml.md', '---\ntitle: Fine\ndescription: a: b\nother: x\n---\n\nBody\n');
    await fixture.put('scalar.mdx', '---\njust a string\n---\n\nBody\n');
    await fixture.put('unclosed.md', '---\ntitle: Never closed\n\nBody\n');
    const { newProblems: problems } = await checkDocs(context);
    expect(sorted(problems)).toEqual([
      { path: 'bad-yaml.md', line: 3, kind: 'frontmatter', message: 'Invalid YAML frontmatter: Nested mappings are not allowed in compact mappings' },
      { path: 'scalar.mdx', line: 2, kind: 'frontmatter', message: expect.stringMatching(/mapping/) },
      { path: 'unclosed.md', line: 1, kind: 'frontmatter', message: expect.stringMatching(/never closed/) },
    ]);
  });

  test('reports internal links to missing pages, ignoring external links, anchors and code', async () => {
    await fixture.put('guides/setup.mdx', '# Setup');
    await fixture.put('api/index.mdx', '# API');
    await fixture.put('images/logo.png', Buffer.from([1, 2, 3]));
    await fixture.put(
      'guides/intro.mdx',
      [
        '# Intro', // 1
        '', // 2
        '[ok root](/guides/setup) [ok rel](./setup) [ok bare](setup#part) [ok index](/api) [ok file](/images/logo.png)', // 3
        '[ext](https://example.com/x) [mail](mailto:docs@example.com) [tel](tel:123) [anchor](#intro) [proto](//cdn.example.com/a)', // 4
        '[missing root](/guides/missing)', // 5
        '<Card title="Nope" href="/reference/nope">Card</Card>', // 6
        '<Card href={"/also/missing"}>Card</Card> <Card href={someVariable}>Skipped</Card>', // 7
        '`[inline code](/not/checked)`', // 8
        '```md', // 9
        '[fenced](/not/checked/either)', // 10
        '```', // 11
        '[climb](../../../../etc/passwd)', // 12
        '', // 13
        '[ref]: ./gone.mdx', // 14
        '[encoded](/guides/set%75p?tab=1)', // 15
      ].join('\n'),
    );
    await fixture.put('legacy.md', 'Old page\n\n<a href="/old/missing">old</a>\n');
    const { newProblems: problems } = await checkDocs(context);
    expect(sorted(problems).map((problem) => [problem.path, problem.line, problem.kind, problem.message])).toEqual([
      ['guides/intro.mdx', 5, 'broken-link', 'Link "/guides/missing" does not point to an existing page or file.'],
      ['guides/intro.mdx', 6, 'broken-link', 'Link "/reference/nope" does not point to an existing page or file.'],
      ['guides/intro.mdx', 7, 'broken-link', 'Link "/also/missing" does not point to an existing page or file.'],
      ['guides/intro.mdx', 12, 'broken-link', 'Link "../../../../etc/passwd" points outside the docs site.'],
      ['guides/intro.mdx', 14, 'broken-link', 'Link "./gone.mdx" does not point to an existing page or file.'],
      ['legacy.md', 3, 'broken-link', 'Link "/old/missing" does not point to an existing page or file.'],
    ]);
  });

  test('checks docs.json navigation in its nested object form', async () => {
    await fixture.put('index.mdx', '# Home');
    await fixture.put('guides/one.md', '# One');
    await fixture.put('api/overview.mdx', '# API');
    const config = {
      $schema: 'https://mintlify.com/docs.json',
      navigation: {
        versions: [
          {
            version: 'v2',
            tabs: [
              {
                tab: 'Guides',
                groups: [{ group: 'Start', root: 'guides/landing', pages: ['index', 'guides/one', { group: 'Nested', pages: ['guides/two', '/guides/one'] }] }],
              },
              { tab: 'API', anchors: [{ anchor: 'Ref', pages: ['api/overview', 'GET /users', 'openapi.json POST /pets', 'api/missing'] }] },
              { tab: 'Blog', href: 'https://blog.example.com' },
            ],
          },
        ],
        languages: [{ language: 'fr', dropdowns: [{ dropdown: 'Docs', pages: ['fr/index'] }] }],
      },
    };
    await fixture.put('docs.json', JSON.stringify(config, null, 2));
    const { newProblems: problems } = await checkDocs(context);
    expect(problems.every((problem) => problem.kind === 'navigation' && problem.path === 'docs.json')).toBe(true);
    expect(problems.map((problem) => problem.message)).toEqual([
      'Navigation page "guides/landing" does not exist (expected guides/landing.mdx or guides/landing.md).',
      'Navigation page "guides/two" does not exist (expected guides/two.mdx or guides/two.md).',
      'Navigation page "api/missing" does not exist (expected api/missing.mdx or api/missing.md).',
      'Navigation page "fr/index" does not exist (expected fr/index.mdx or fr/index.md).',
    ]);
    const text = JSON.stringify(config, null, 2).split('\n');
    const lineOf = (needle: string): number => text.findIndex((line) => line.includes(`"${needle}"`)) + 1;
    expect(problems.map((problem) => problem.line)).toEqual([lineOf('guides/landing'), lineOf('guides/two'), lineOf('api/missing'), lineOf('fr/index')]);
  });

  test('checks mint.json navigation as an array of groups, and reports invalid JSON', async () => {
    await fixture.put('introduction.mdx', '# Intro');
    await fixture.put(
      'mint.json',
      JSON.stringify({ name: 'Old', navigation: [{ group: 'Get started', pages: ['introduction', { group: 'More', pages: ['more/missing'] }] }] }),
    );
    await fixture.put('site/docs.json', '{\n  "navigation": {\n    pages: ["a"]\n  }\n}\n');
    const { newProblems: problems } = await checkDocs(context);
    expect(sorted(problems)).toEqual([
      {
        path: 'mint.json',
        line: 1,
        kind: 'navigation',
        message: 'Navigation page "more/missing" does not exist (expected more/missing.mdx or more/missing.md).',
      },
      { path: 'site/docs.json', line: 3, kind: 'navigation', message: expect.stringMatching(/^site\/docs\.json is not valid JSON/) },
    ]);
  });

  test('resolves pages and root links against the directory holding docs.json', async () => {
    await fixture.put('site/docs.json', JSON.stringify({ navigation: { pages: ['start', 'guides/a'] } }));
    await fixture.put('site/start.mdx', 'Go to [A](/guides/a) or [B](/guides/b).');
    await fixture.put('site/guides/a.mdx', '# A');
    await fixture.put('guides/b.mdx', '# B at the workspace root, not in the site');
    const { newProblems: problems } = await checkDocs(context);
    expect(problems).toEqual([
      { path: 'site/start.mdx', line: 1, kind: 'broken-link', message: 'Link "/guides/b" does not point to an existing page or file.' },
    ]);
  });

  test('skips node_modules, .git and linked directories, and notes when caps cut the check short', async () => {
    await fixture.put('node_modules/pkg/readme.md', '[x](/missing)');
    await fixture.put('.git/notes.md', '[x](/missing)');
    await fixture.link('linked', fixture.outside);
    await fixture.put('a.mdx', '[x](/missing-a)');
    await fixture.put('b.mdx', '[x](/missing-b) [y](/missing-c)');
    await fixture.put('c.mdx', '[x](/missing-d)');
    const pagesCapped = await checkDocs(createToolContext({ workspace: fixture.workspace, workers, limits: { maxCheckedPages: 1 } }));
    expect(pagesCapped.pagesChecked).toBe(1);
    expect(pagesCapped.truncated).toBe(true);
    expect(pagesCapped.newProblems.map((problem) => [problem.kind, problem.message])).toEqual([
      ['broken-link', 'Link "/missing-a" does not point to an existing page or file.'],
      ['limit', 'Only the first 1 of 3 pages were checked.'],
    ]);
    const problemsCapped = await checkDocs(createToolContext({ workspace: fixture.workspace, workers, limits: { maxProblems: 2 } }));
    expect(problemsCapped.truncated).toBe(true);
    expect(problemsCapped.newProblems.map((problem) => problem.kind)).toEqual(['broken-link', 'broken-link', 'limit']);
    expect(problemsCapped.newProblems.at(-1)?.message).toBe('4 new problems; only the first 2 are listed. Fix these and run check_docs again.');
    const full = await checkDocs(context);
    expect(full.newProblems.map((problem) => problem.path)).toEqual(['a.mdx', 'b.mdx', 'b.mdx', 'c.mdx']);
  });

  test('a page above the size limit is reported, not compiled; one over the time limit is stopped; the rest is checked, in order', async () => {
    await fixture.put('a-large.mdx', `# Large\n\n${'word '.repeat(50_000)}\n`);
    await fixture.put('b-quotes.mdx', '>'.repeat(100 * 1024));
    await fixture.put('c-broken.mdx', '[x](/missing)\n');
    const limited = createToolContext({ workspace: fixture.workspace, workers, limits: { maxCheckedPageBytes: 200 * 1024, pageCheckTimeoutMs: 1500 } });
    const report = await checkDocs(limited);
    expect(report).toEqual({
      newProblems: [
        {
          path: 'a-large.mdx',
          kind: 'check-limit',
          message: 'a-large.mdx is 250010 bytes; the docs check parses pages of at most 204800 bytes, so it was not checked. Split it into smaller pages.',
        },
        { path: 'b-quotes.mdx', kind: 'check-limit', message: expect.stringMatching(/^Checking b-quotes\.mdx took longer than 1500 ms and was stopped/) },
        { path: 'c-broken.mdx', line: 1, kind: 'broken-link', message: 'Link "/missing" does not point to an existing page or file.' },
      ],
      preExisting: { total: 0, byKind: {} },
      pagesChecked: 3,
      truncated: false,
    });
  });

  test('a run past its time budget stops and says how many pages it checked', async () => {
    await fixture.put('a-quotes.mdx', '>'.repeat(100 * 1024));
    await fixture.put('b.mdx', '[x](/missing)\n');
    await fixture.put('c.mdx', '[x](/missing)\n');
    const limited = createToolContext({ workspace: fixture.workspace, workers, limits: { checkDocsTimeoutMs: 300, pageCheckTimeoutMs: 1500 } });
    const report = await checkDocs(limited);
    expect(report.truncated).toBe(true);
    // a is still being parsed when the budget runs out (b and c may have finished on the other worker).
    expect(report.pagesChecked).toBeLessThan(3);
    expect(report.newProblems.some((problem) => problem.path === 'a-quotes.mdx')).toBe(false);
    expect(report.newProblems.at(-1)).toEqual({
      path: '.',
      kind: 'limit',
      message: `The check ran out of time (${report.pagesChecked} of 3 pages checked); the others were not checked. Fix these and run it again.`,
    });
  });

  test('YAML aliases beyond the cap and navigation nested too deeply are reported, not failures of the check', async () => {
    const bomb = ['a0: &a0 [x, x, x, x, x, x, x, x, x, x]'];
    for (let level = 1; level < 12; level += 1)
      bomb.push(
        `a${level}: &a${level} [${Array(10)
          .fill(`*a${level - 1}`)
          .join(', ')}]`,
      );
    await fixture.put('bomb.mdx', `---\n${bomb.join('\n')}\n---\n\n# Bomb\n`);
    await fixture.put('docs.json', `{"navigation": {"pages": [${'['.repeat(5000)}"missing"${']'.repeat(5000)}]}}`);
    const { newProblems: problems } = await checkDocs(context);
    expect(sorted(problems)).toEqual([
      { path: 'bomb.mdx', line: 2, kind: 'frontmatter', message: 'Invalid YAML frontmatter: Excessive alias count indicates a resource exhaustion attack' },
      { path: 'docs.json', kind: 'check-limit', message: 'docs.json nests more than 64 levels deep; it was not read.' },
    ]);
  });
});
