import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, test } from 'vitest';
import { checkDocs, createToolContext, moveFile, ToolWorkerPool, WritePolicy, type ToolContext } from '../../../src/agent/tools/index.js';
import { createTemporaryWorkspace, type TemporaryWorkspace } from './temporary-workspace.js';

let fixture: TemporaryWorkspace;
let context: ToolContext;
const workers = new ToolWorkerPool();

beforeEach(async () => {
  fixture = await createTemporaryWorkspace();
  // As a job's policy would be: docs.json's $ref files may be changed.
  context = createToolContext({ workspace: fixture.workspace, workers, policy: new WritePolicy({}, ['more-nav.json']) });
  await fixture.put(
    'docs.json',
    `${JSON.stringify(
      {
        name: 'Acme',
        navigation: {
          tabs: [
            { tab: 'Guides', pages: ['index', 'guides/old', 'guides/sibling'] },
            { tab: 'More', $ref: './more-nav.json' },
          ],
        },
      },
      null,
      2,
    )}\n`,
  );
  await fixture.put('more-nav.json', '{\n  "pages": [\n    "/guides/old"\n  ]\n}\n');
  await fixture.put('index.mdx', '# Home\n\n[old](/guides/old) and [part](/guides/old#part) and <Card href="/guides/old?tab=1">card</Card>\n');
  await fixture.put(
    'guides/sibling.mdx',
    '# Sibling\n\n[relative](./old) [with extension](../guides/old.mdx)\n\n<Card href={base + "/guides/old"}>computed: not a checkable link, left alone</Card>\n',
  );
  await fixture.put('guides/old.mdx', '# Old\n\n[sibling](./sibling) [home](/) [image](../images/a.png)\n');
  await fixture.put('images/a.png', Buffer.from([1, 2, 3]));
});

afterEach(() => fixture.remove());
afterAll(() => workers.close());

const read = (relative: string): Promise<string> => readFile(path.join(fixture.workspace, relative), 'utf8');

describe('move_file keeps the site whole', () => {
  test("rewrites links in their own style, navigation in docs.json and its $ref file, and the moved page's relative links", async () => {
    const result = await moveFile(context, { from: 'guides/old.mdx', to: 'reference/new.mdx' });
    expect(result.linksUpdated).toEqual([
      { path: 'guides/sibling.mdx', links: 2 },
      { path: 'index.mdx', links: 3 },
      // `../images/a.png` reads the same from the new folder.
      { path: 'reference/new.mdx', links: 1 },
    ]);
    expect(result.navigationUpdated).toEqual([
      { path: 'docs.json', entries: 1 },
      { path: 'more-nav.json', entries: 1 },
    ]);
    expect(result.notUpdated).toEqual([]);
    expect(await read('index.mdx')).toBe('# Home\n\n[old](/reference/new) and [part](/reference/new#part) and <Card href="/reference/new?tab=1">card</Card>\n');
    expect(await read('guides/sibling.mdx')).toBe(
      '# Sibling\n\n[relative](../reference/new) [with extension](../reference/new.mdx)\n\n<Card href={base + "/guides/old"}>computed: not a checkable link, left alone</Card>\n',
    );
    expect(await read('reference/new.mdx')).toBe('# Old\n\n[sibling](../guides/sibling) [home](/) [image](../images/a.png)\n');
    expect(await read('more-nav.json')).toBe('{\n  "pages": [\n    "/reference/new"\n  ]\n}\n');
    expect(JSON.parse(await read('docs.json')).navigation.tabs[0].pages).toEqual(['index', 'reference/new', 'guides/sibling']);
    expect(context.changes.paths()).toEqual(['docs.json', 'guides/old.mdx', 'guides/sibling.mdx', 'index.mdx', 'more-nav.json', 'reference/new.mdx']);
    expect((await checkDocs(context)).newProblems).toEqual([]);
  });

  test('with redirect, links stay and docs.json gains a redirect; the navigation still follows the page', async () => {
    const result = await moveFile(context, { from: 'guides/old.mdx', to: 'reference/new.mdx', redirect: true });
    expect(result.redirectAdded).toEqual({ file: 'docs.json', source: '/guides/old', destination: '/reference/new' });
    expect(result.linksUpdated).toEqual([{ path: 'reference/new.mdx', links: 1 }]);
    expect(await read('index.mdx')).toContain('[old](/guides/old)');
    const config = JSON.parse(await read('docs.json'));
    expect(config.redirects).toEqual([{ source: '/guides/old', destination: '/reference/new' }]);
    expect(config.navigation.tabs[0].pages).toEqual(['index', 'reference/new', 'guides/sibling']);
    expect((await checkDocs(context)).newProblems).toEqual([]);
  });

  test('a file the write policy refuses is listed as not updated, and the check reports what stays broken', async () => {
    context = createToolContext({ workspace: fixture.workspace, workers });
    const result = await moveFile(context, { from: 'guides/old.mdx', to: 'reference/new.mdx' });
    expect(result.notUpdated).toEqual([{ path: 'more-nav.json', line: 3, reason: expect.stringMatching(/^more-nav\.json is not documentation content/) }]);
    expect(await read('more-nav.json')).toContain('"/guides/old"');
    expect((await checkDocs(context)).newProblems.map((problem) => problem.path)).toEqual(['more-nav.json']);
  });

  test('a docs.json nested too deeply is not parsed to add a redirect; the move says so', async () => {
    await fixture.put('docs.json', `{"navigation": {"pages": ["index"]}, "x": ${'['.repeat(100_000)}${']'.repeat(100_000)}}`);
    const result = await moveFile(context, { from: 'guides/old.mdx', to: 'reference/new.mdx', redirect: true });
    expect(result.redirectAdded).toBeUndefined();
    expect(result.notUpdated).toContainEqual({ path: 'docs.json', reason: expect.stringMatching(/too large or too deeply nested/) });
  });

  test('a redirect that cannot be added is said, and the check then reports exactly what the move broke', async () => {
    await fixture.put('docs.json', JSON.stringify({ navigation: { pages: ['index'] }, redirects: 'not a list' }));
    const result = await moveFile(context, { from: 'guides/old.mdx', to: 'reference/new.mdx', redirect: true });
    expect(result.redirectAdded).toBeUndefined();
    expect(result.notUpdated).toEqual([expect.objectContaining({ path: 'docs.json', reason: expect.stringMatching(/"redirects" is not a list/) })]);
    const { newProblems } = await checkDocs(context);
    expect(newProblems.map((problem) => `${problem.path}:${problem.line} ${problem.message}`)).toEqual([
      'guides/sibling.mdx:3 Link "../guides/old.mdx" does not point to an existing page or file.',
      'guides/sibling.mdx:3 Link "./old" does not point to an existing page or file.',
      'index.mdx:3 Link "/guides/old" does not point to an existing page or file.',
      'index.mdx:3 Link "/guides/old#part" does not point to an existing page or file.',
      'index.mdx:3 Link "/guides/old?tab=1" does not point to an existing page or file.',
    ]);
  });
});
