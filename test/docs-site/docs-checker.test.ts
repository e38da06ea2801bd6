import { afterAll, afterEach, describe, expect, test } from 'vitest';
import { ToolWorkerPool } from '../../src/agent/tools/tool-worker-pool.js';
import { described, SiteFixture } from './site-fixture.js';

const workers = new ToolWorkerPool();
afterAll(() => workers.close());

let fixture: SiteFixture | undefined;
afterEach(() => fixture?.remove());

/** A small site whose base already has problems, like real ones. */
function siteWithOldProblems(): SiteFixture {
  const pages: Record<string, string> = {
    'docs.json': JSON.stringify({ name: 'Acme', navigation: { pages: ['index', 'guides/target', 'guides/a', 'guides/b', 'old/missing-page'] } }, null, 2),
    'index.mdx': '# Home\n\n[target](/guides/target) [old break](/never-existed)\n',
    'guides/target.mdx': '# Target\n',
    'guides/a.mdx': '# A\n\n[t1](/guides/target)\n\n[t2](./target)\n',
    'guides/b.mdx': '# B\n\n[t](target#section)\n\n<Note>old unclosed\n',
  };
  return new SiteFixture(pages);
}

describe('DocsChecker against a base', () => {
  test('problems the change introduced come separately from those the base had, counted by kind', async () => {
    fixture = siteWithOldProblems();
    fixture.delete('guides/target.mdx');
    fixture.put('guides/c.mdx', '# C\n\n[new break](/nope)\n');
    const result = await fixture.checker(workers, { withBase: true }).check();
    expect(result.compared).toBe(true);
    expect(described(result.introduced)).toEqual([
      'docs.json:8 navigation Navigation page "guides/target" does not exist (expected guides/target.mdx or guides/target.md).',
      'guides/a.mdx:3 broken-link Link "/guides/target" does not point to an existing page or file.',
      'guides/a.mdx:5 broken-link Link "./target" does not point to an existing page or file.',
      'guides/b.mdx:3 broken-link Link "target#section" does not point to an existing page or file.',
      'guides/c.mdx:3 broken-link Link "/nope" does not point to an existing page or file.',
      'index.mdx:3 broken-link Link "/guides/target" does not point to an existing page or file.',
    ]);
    expect(result.existingByKind).toEqual({ 'broken-link': 1, navigation: 1, 'mdx-syntax': 1 });
    expect(described(result.existing)).toEqual([
      'docs.json:10 navigation Navigation page "old/missing-page" does not exist (expected old/missing-page.mdx or old/missing-page.md).',
      expect.stringMatching(/^guides\/b\.mdx:\d+ mdx-syntax /),
      'index.mdx:3 broken-link Link "/never-existed" does not point to an existing page or file.',
    ]);
  });

  test('a line shift above an old problem does not make it new; a second identical break does', async () => {
    fixture = siteWithOldProblems();
    fixture.put('index.mdx', '# Home\n\nA new paragraph.\n\n[target](/guides/target) [old break](/never-existed)\n\n[again](/never-existed)\n');
    const result = await fixture.checker(workers, { withBase: true }).check();
    expect(described(result.introduced)).toEqual(['index.mdx:7 broken-link Link "/never-existed" does not point to an existing page or file.']);
    expect(result.existing.map((problem) => problem.line)).toContain(5);
  });

  test('after the first check, an edit re-parses only the edited page and re-judges the pages linking to what came or went', async () => {
    fixture = siteWithOldProblems();
    const checker = fixture.checker(workers, { withBase: true });
    const first = await checker.check();
    expect(first.introduced).toEqual([]);
    const parsed = checker.pagesParsed;
    expect(parsed).toBe(4);

    fixture.delete('guides/target.mdx');
    const afterDelete = await checker.check(['guides/target.mdx']);
    expect(checker.pagesParsed).toBe(parsed);
    expect(afterDelete.introduced.filter((problem) => problem.kind === 'broken-link')).toHaveLength(4);

    fixture.put('guides/target.mdx', '# Target is back\n');
    const restored = await checker.check(['guides/target.mdx']);
    expect(checker.pagesParsed).toBe(parsed + 1);
    expect(restored.introduced).toEqual([]);

    fixture.put('guides/a.mdx', '# A\n\n[t1](/guides/target)\n\n[t2](./target)\n\n[fresh](/fresh-break)\n');
    const edited = await checker.check(['guides/a.mdx']);
    expect(described(edited.introduced)).toEqual(['guides/a.mdx:7 broken-link Link "/fresh-break" does not point to an existing page or file.']);
    // The incremental answer is the answer a fresh full check gives.
    const fresh = await fixture.checker(workers, { withBase: true }).check();
    expect(described(edited.introduced)).toEqual(described(fresh.introduced));
    expect(described(edited.existing)).toEqual(described(fresh.existing));
  });

  test('a configuration change rebuilds the site but parses no unchanged page again', async () => {
    fixture = siteWithOldProblems();
    const checker = fixture.checker(workers, { withBase: true });
    await checker.check();
    const parsed = checker.pagesParsed;
    fixture.put('docs.json', JSON.stringify({ navigation: { pages: ['index'] }, redirects: [{ source: '/never-existed', destination: '/guides/a' }] }));
    const result = await checker.check(['docs.json']);
    expect(checker.pagesParsed).toBe(parsed);
    expect(result.introduced).toEqual([]);
    expect(result.existingByKind).toEqual({ 'mdx-syntax': 1 });
  });

  test('without a base every problem is new', async () => {
    fixture = siteWithOldProblems();
    const result = await fixture.checker(workers).check();
    expect(result.compared).toBe(false);
    expect(result.introduced).toHaveLength(3);
    expect(result.existing).toEqual([]);
  });
});
