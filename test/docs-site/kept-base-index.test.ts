import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, test } from 'vitest';
import { ToolWorkerPool } from '../../src/agent/tools/tool-worker-pool.js';
import { WorkspaceFiles } from '../../src/agent/tools/workspace-files.js';
import { poolDocsRunner } from '../../src/agent/tools/docs-task-runner-pool.js';
import { DocsChecker, type DocsCheckResult } from '../../src/docs-site/docs-checker.js';
import { BaseIndexCache } from '../../src/docs-site/base-index-cache.js';
import type { DocsTaskRunner } from '../../src/docs-site/docs-task-runner.js';
import { changedBetween, GitTreeFiles } from '../../src/git/git-tree-files.js';
import { commitFiles, createRepository, fixtureGit, temporaryDirectory, writeFiles } from '../git/git-fixtures.js';
import { described, TEST_LIMITS } from './site-fixture.js';

const workers = new ToolWorkerPool();
afterAll(() => workers.close());

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** A site whose base already has problems; `guides/target` is linked from three pages and the navigation. */
const SITE: Record<string, string> = {
  'docs.json': JSON.stringify({ name: 'Acme', navigation: { pages: ['index', 'guides/target', 'guides/a', 'guides/b', 'old/missing-page'] } }, null, 2),
  'index.mdx': '# Home\n\n[target](/guides/target) [old break](/never-existed)\n',
  'guides/target.mdx': '# Target\n',
  'guides/a.mdx': '# A\n\n[t1](/guides/target)\n\n[t2](./target)\n',
  'guides/b.mdx': '# B\n\n[t](target#section)\n\n<Note>old unclosed\n',
  'guides/c.mdx': '# C\n\n[a](/guides/a)\n',
};

/** The project's repository (the remote) and a job's fresh clone of one of its commits. */
function remote(files: Record<string, string> = SITE): string {
  const temporary = temporaryDirectory('docwright-kept-');
  cleanups.push(temporary.cleanup);
  return createRepository(join(temporary.path, 'remote'), files);
}

function cloneOf(repository: string, ref = 'main'): { directory: string; head: string } {
  const temporary = temporaryDirectory('docwright-clone-');
  cleanups.push(temporary.cleanup);
  const directory = join(temporary.path, 'clone');
  fixtureGit(temporary.path, 'clone', '--quiet', '--branch', ref, repository, directory);
  return { directory, head: fixtureGit(directory, 'rev-parse', 'HEAD') };
}

/** Counts the pages a checker parses, through the real worker threads. */
function countingRunner(): DocsTaskRunner & { parsed: string[] } {
  const real = poolDocsRunner(workers);
  const parsed: string[] = [];
  return {
    ...real,
    parsed,
    analyzePage: (input, timeoutMs) => {
      parsed.push(input.path);
      return real.analyzePage(input, timeoutMs);
    },
  };
}

/** A job's checker: its clone as the current files, `base` (default the clone's HEAD) as a commit base. */
function jobChecker(
  clone: { directory: string; head: string },
  kept: BaseIndexCache | undefined,
  options: { base?: string; runner?: DocsTaskRunner } = {},
): DocsChecker {
  const commit = options.base ?? clone.head;
  return new DocsChecker({
    current: new WorkspaceFiles(clone.directory),
    base: async () => ({
      source: new GitTreeFiles(clone.directory, commit),
      commit,
      startDiff: () => changedBetween(clone.directory, commit, clone.head),
    }),
    ...(kept === undefined ? {} : { keptBases: kept }),
    runner: options.runner ?? poolDocsRunner(workers),
    limits: TEST_LIMITS,
    timeoutMs: 60_000,
  });
}

function summary(result: DocsCheckResult): { introduced: string[]; existing: string[]; pagesChecked: number } {
  return { introduced: described(result.introduced), existing: described(result.existing), pagesChecked: result.pagesChecked };
}

describe('base indexes kept per commit', () => {
  test('the second job on a commit parses only the page it changed, and gets what a job without the cache gets', async () => {
    const repository = remote();
    const kept = new BaseIndexCache();
    const first = cloneOf(repository);
    const firstRunner = countingRunner();
    await jobChecker(first, kept, { runner: firstRunner }).check();
    expect(firstRunner.parsed).toHaveLength(5);
    expect(kept.misses).toBe(1);

    const second = cloneOf(repository);
    writeFiles(second.directory, { 'guides/a.mdx': '# A\n\n[t1](/guides/target)\n\n[fresh](/fresh-break)\n' });
    const runner = countingRunner();
    const result = await jobChecker(second, kept, { runner }).check(['guides/a.mdx']);
    expect(kept.hits).toBe(1);
    expect(runner.parsed).toEqual(['guides/a.mdx']);
    expect(described(result.introduced)).toEqual(['guides/a.mdx:5 broken-link Link "/fresh-break" does not point to an existing page or file.']);
    expect(summary(result)).toEqual(summary(await jobChecker(second, undefined).check()));
  });

  test('a job on another commit builds that commit’s index', async () => {
    const repository = remote();
    const kept = new BaseIndexCache();
    await jobChecker(cloneOf(repository), kept).check();
    commitFiles(repository, { 'guides/d.mdx': '# D\n\n[gone](/gone)\n' }, 'Add d');
    const runner = countingRunner();
    const result = await jobChecker(cloneOf(repository), kept, { runner }).check();
    expect(kept.misses).toBe(2);
    expect(runner.parsed).toHaveLength(6);
    expect(described(result.introduced)).toEqual([]);
    expect(described(result.existing)).toContain('guides/d.mdx:3 broken-link Link "/gone" does not point to an existing page or file.');
  });

  test('two jobs on one base never see each other’s edits, and the kept index stays the commit’s', async () => {
    const repository = remote();
    const kept = new BaseIndexCache();
    const untouched = await jobChecker(cloneOf(repository), undefined).check();

    const deleting = cloneOf(repository);
    const editing = cloneOf(repository);
    const deleter = jobChecker(deleting, kept);
    const editor = jobChecker(editing, kept);
    rmSync(join(deleting.directory, 'guides/target.mdx'));
    writeFiles(editing.directory, { 'guides/c.mdx': '# C\n\n[a](/guides/a) [new](/guides/new)\n' });
    // Both start together: the second waits for the first one's build.
    const [deleted, edited] = await Promise.all([deleter.check(['guides/target.mdx']), editor.check(['guides/c.mdx'])]);
    expect(kept.misses).toBe(1);
    expect(kept.hits).toBe(1);
    expect(deleted.introduced.map((problem) => problem.path)).toEqual(['docs.json', 'guides/a.mdx', 'guides/a.mdx', 'index.mdx']);
    expect(described(edited.introduced)).toEqual(['guides/c.mdx:3 broken-link Link "/guides/new" does not point to an existing page or file.']);

    // More edits in each job after their first check.
    writeFiles(deleting.directory, { 'guides/target.mdx': '# Target is back\n\n[x](/x)\n' });
    writeFiles(editing.directory, { 'index.mdx': '# Home\n' });
    const restored = await deleter.check(['guides/target.mdx']);
    expect(described(restored.introduced)).toEqual(['guides/target.mdx:3 broken-link Link "/x" does not point to an existing page or file.']);
    const shortened = await editor.check(['index.mdx']);
    expect(shortened.introduced.map((problem) => problem.path)).toEqual(['guides/c.mdx']);

    const third = await jobChecker(cloneOf(repository), kept).check();
    expect(kept.hits).toBe(2);
    expect(summary(third)).toEqual(summary(untouched));
  });

  test('a follow-up on a branch that differs from the base gets what a full build gets', async () => {
    const repository = remote();
    const base = fixtureGit(repository, 'rev-parse', 'HEAD');
    fixtureGit(repository, 'checkout', '--quiet', '-b', 'docwright/job');
    commitFiles(repository, { 'guides/a.mdx': '# A\n\n[t1](/guides/target)\n\n[earlier](/earlier-break)\n', 'guides/new.mdx': '# New\n' }, 'Turn 1');
    fixtureGit(repository, 'rm', '--quiet', 'guides/c.mdx');
    fixtureGit(repository, 'commit', '--quiet', '-m', 'Turn 1 again');
    fixtureGit(repository, 'checkout', '--quiet', 'main');
    const kept = new BaseIndexCache();
    await jobChecker(cloneOf(repository), kept).check();

    const followUp = cloneOf(repository, 'docwright/job');
    fixtureGit(followUp.directory, 'fetch', '--quiet', 'origin', 'main');
    writeFiles(followUp.directory, { 'guides/target.mdx': '# Target\n\n[b](/guides/b)\n' });
    const runner = countingRunner();
    const derived = await jobChecker(followUp, kept, { base, runner }).check(['guides/target.mdx']);
    expect(kept.hits).toBe(1);
    expect(runner.parsed.sort()).toEqual(['guides/a.mdx', 'guides/new.mdx', 'guides/target.mdx']);
    expect(described(derived.introduced)).toEqual(['guides/a.mdx:5 broken-link Link "/earlier-break" does not point to an existing page or file.']);
    expect(summary(derived)).toEqual(summary(await jobChecker(followUp, undefined, { base }).check()));
  });

  test('a file no change reported, or a checkout that may rewrite files, makes the job build its own state', async () => {
    const repository = remote();
    const kept = new BaseIndexCache();
    await jobChecker(cloneOf(repository), kept).check();
    const job = cloneOf(repository);
    writeFiles(job.directory, { 'guides/unreported.mdx': '# U\n\n[broken](/unreported-break)\n' });
    const result = await jobChecker(job, kept).check();
    expect(described(result.introduced)).toEqual(['guides/unreported.mdx:3 broken-link Link "/unreported-break" does not point to an existing page or file.']);

    const converting = remote({ ...SITE, '.gitattributes': '*.mdx text eol=crlf\n' });
    const runner = countingRunner();
    const crlf = cloneOf(converting);
    await jobChecker(cloneOf(converting), kept).check();
    const again = await jobChecker(crlf, kept, { runner }).check();
    expect(kept.hits).toBe(2);
    // The checkout's CRLF pages differ from the commit's: each is parsed again.
    expect(runner.parsed).toHaveLength(5);
    expect(summary(again)).toEqual(summary(await jobChecker(crlf, undefined).check()));
  });

  test('bounded by count and by estimated bytes, least recently used out; an index with a page that ran out of time is not kept', async () => {
    const repository = remote();
    const first = fixtureGit(repository, 'rev-parse', 'HEAD');
    const second = commitFiles(repository, { 'guides/d.mdx': '# D\n' }, 'Add d');
    const kept = new BaseIndexCache({ maxEntries: 1 });
    const clone = cloneOf(repository);
    fixtureGit(clone.directory, 'fetch', '--quiet', 'origin', first);
    const check = (base: string, cache: BaseIndexCache, runner?: DocsTaskRunner): Promise<DocsCheckResult> =>
      jobChecker(clone, cache, { base, ...(runner === undefined ? {} : { runner }) }).check();
    await check(first, kept);
    await check(second, kept);
    expect(kept.size).toBe(1);
    await check(second, kept);
    expect(kept.hits).toBe(1);
    await check(first, kept);
    expect(kept.misses).toBe(3);

    const tiny = new BaseIndexCache({ maxBytes: 1_000 });
    await check(first, tiny);
    await check(first, tiny);
    expect({ size: tiny.size, misses: tiny.misses, bytes: tiny.bytes }).toEqual({ size: 0, misses: 2, bytes: 0 });
    const roomy = new BaseIndexCache();
    await check(first, roomy);
    expect(roomy.bytes).toBeGreaterThan(1_000);

    const real = poolDocsRunner(workers);
    const slowTarget: DocsTaskRunner = {
      ...real,
      analyzePage: (input, timeoutMs) =>
        input.path === 'guides/target.mdx' ? Promise.resolve({ status: 'timeout', timeoutMs }) : real.analyzePage(input, timeoutMs),
    };
    const flaky = new BaseIndexCache();
    const timedOut = await check(first, flaky, slowTarget);
    expect(timedOut.existing.some((problem) => problem.kind === 'check-limit')).toBe(true);
    expect(flaky.size).toBe(0);
  });
});
