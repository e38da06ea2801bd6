/**
 * The `docs` suite: the docs check (src/docs-site/DocsChecker) on a generated Mintlify
 * site (bench/docs-site-generator.ts), built the way the agent builds it
 * (agent/tools/tool-context.ts: workspace files, the tool worker pool, the tool limits):
 *   - a full check of 2,000 and of 25,000 pages (× scale) without a base;
 *   - re-checks after one edit that breaks a link, and after deleting a page ~30 pages link to;
 *   - the first check with a base (the commit) against the working tree;
 * against the floor any checker pays, measured in the same run: `git ls-files` and reading
 * every page's bytes. Every answer is compared with what the generator planted.
 */
import { execFile } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { DocsChecker, type DocsCheckResult } from '../src/docs-site/docs-checker.js';
import type { CheckLimits } from '../src/docs-site/check-limits.js';
import { docsCheckLimits, poolDocsRunner } from '../src/agent/tools/docs-task-runner-pool.js';
import { DEFAULT_TOOL_LIMITS } from '../src/agent/tools/tool-limits.js';
import { ToolWorkerPool } from '../src/agent/tools/tool-worker-pool.js';
import { WorkspaceFiles } from '../src/agent/tools/workspace-files.js';
import { GitTreeFiles } from '../src/git/git-tree-files.js';
import { timeMdxCompile } from './docs-compile-baseline.js';
import { generateDocsSite, type GeneratedDocsSite } from './docs-site-generator.js';
import type { BenchOptions } from './lib/bench-options.js';
import { summarize } from './lib/percentiles.js';
import { metric, type SuiteReport } from './lib/suite-report.js';
import { timeOnce, timeRepeated } from './lib/timing.js';

const run = promisify(execFile);

const SMALL_PAGES = 2_000;
const LARGE_PAGES = 25_000;
const FULL_CHECK_RUNS = 3;
const FULL_SMALL_LIMIT_MS = 5_000;
const FULL_LARGE_LIMIT_MS = 60_000;
const RECHECK_LIMIT_MS = 500;
/** Files read at once by the floor, as WorkspaceFiles reads them. */
const READ_CONCURRENCY = 32;

/** The agent's limits (agent/tools/tool-context.ts), so the bench measures what a job runs. */
const LIMITS: CheckLimits = docsCheckLimits(DEFAULT_TOOL_LIMITS);

export async function runDocsBenchmarks(options: BenchOptions): Promise<SuiteReport> {
  const small = Math.max(200, Math.round(SMALL_PAGES * options.scale));
  const large = Math.max(500, Math.round(LARGE_PAGES * options.scale));
  const pool = new ToolWorkerPool();
  const report: SuiteReport = {
    suite: 'docs',
    title: `docs check: Mintlify sites of ${small.toLocaleString('en-US')} and ${large.toLocaleString('en-US')} pages`,
    context: [
      `DocsChecker as the agent builds it: WorkspaceFiles, ${pool.size} tool worker thread(s) (niced; one fewer than the ${availableParallelism()} CPUs, at most 2), the default tool limits`,
      'floor (baseline): `git ls-files` + reading every page file, 32 reads at once, page cache warm — what any checker pays before parsing',
    ],
    metrics: [],
    notes: [],
  };
  try {
    await measureSmallSite(small, pool, options, report);
    try {
      await measureLargeSite(large, pool, options, report);
    } catch (error) {
      // The 2,000-page figures stay; the missed metric marks the run as failed.
      const message = error instanceof Error ? error.message : String(error);
      report.notes.push(`the ${large.toLocaleString('en-US')}-page part failed: ${message}`);
      report.metrics.push(
        metric({
          name: `full check, ${large.toLocaleString('en-US')} pages`,
          value: Number.NaN,
          unit: 'ms',
          target: { of: 'value', comparison: 'at-most', limit: FULL_LARGE_LIMIT_MS },
        }),
      );
    }
  } finally {
    await pool.close();
  }
  return report;
}

async function measureSmallSite(pageCount: number, pool: ToolWorkerPool, options: BenchOptions, report: SuiteReport): Promise<void> {
  const site = await generate(pageCount, options);
  describeSite(site, report);
  const floor = await measureFloor(site);
  const floorBaseline = { name: 'floor', value: floor };
  const count = site.pageCount.toLocaleString('en-US');
  options.log(`docs: baseline, the old approach: mdx compile() of ${count} pages in ${pool.size} thread(s), twice`);
  const compiles = [await timeMdxCompile(site.directory, site.pageFiles, pool.size), await timeMdxCompile(site.directory, site.pageFiles, pool.size)];
  const compiled = compiles.reduce((best, next) => (next.milliseconds < best.milliseconds ? next : best));

  options.log(`docs: full check of ${count} pages, cold workers`);
  const cold = await timeOnce(() => fullCheck(site, pool));
  assertProblems(cold.result.result, site, { broken: site.plantedBroken, navigation: 0 }, 'full check (cold)');
  options.log(`docs: full check of ${count} pages × ${FULL_CHECK_RUNS}`);
  const full = await timeRepeated(() => fullCheck(site, pool), { iterations: FULL_CHECK_RUNS });
  const { checker, result } = full.lastResult;
  assertProblems(result, site, { broken: site.plantedBroken, navigation: 0 }, 'full check');
  const fullBaseline = { name: 'full check', value: full.summary.p50 };
  report.metrics.push(
    metric({
      name: `full check, ${count} pages, p50 of ${FULL_CHECK_RUNS}`,
      value: full.summary.p50,
      unit: 'ms',
      baseline: floorBaseline,
      target: { of: 'value', comparison: 'at-most', limit: FULL_SMALL_LIMIT_MS },
      note: `runs ${full.samples.map(round).join(', ')} ms; ${checker.pagesParsed} pages parsed per run, ${result.introduced.length} problems found (the ${site.plantedBroken} planted broken links)`,
    }),
    metric({
      name: `full check, ${count} pages, vs the old approach`,
      value: full.summary.p50,
      unit: 'ms',
      baseline: { name: 'mdx compile', value: compiled.milliseconds },
      note: `old approach = @mdx-js/mdx compile() of every page body in ${pool.size} worker thread(s), best of 2 (${compiles.map((item) => round(item.milliseconds)).join(', ')} ms), reading included; it judges no link. ${compiled.math ? 'With remark-math.' : 'remark-math not installed: math blanked out first.'} ${compiled.failed} pages rejected`,
    }),
    metric({
      name: `full check, ${count} pages, cold workers`,
      value: cold.milliseconds,
      unit: 'ms',
      baseline: floorBaseline,
      note: 'the first check of the run: includes starting the worker threads and loading the MDX compiler in them',
    }),
  );

  options.log(`docs: ${site.edits.length} edits that break a link, each re-checked and restored`);
  const broken: number[] = [];
  const restored: number[] = [];
  for (const edit of site.edits) {
    const file = join(site.directory, edit.page);
    const original = await readFile(file, 'utf8');
    await writeFile(file, original.replace(edit.before, edit.after));
    const after = await timeOnce(() => checker.check([edit.page]));
    assertProblems(after.result, site, { broken: site.plantedBroken + 1, navigation: 0 }, `re-check after editing ${edit.page}`);
    if (!after.result.introduced.some((problem) => problem.path === edit.page && problem.kind === 'broken-link'))
      throw new Error(`re-check after editing ${edit.page}: the new broken link is not reported on that page`);
    broken.push(after.milliseconds);
    await writeFile(file, original);
    const back = await timeOnce(() => checker.check([edit.page]));
    assertProblems(back.result, site, { broken: site.plantedBroken, navigation: 0 }, `re-check after restoring ${edit.page}`);
    restored.push(back.milliseconds);
  }
  const edited = summarize(broken);
  const editNote = `${broken.length} edits, each to another page: ${broken.map(round).join(', ')} ms; restoring each page and re-checking: p50 ${round(summarize(restored).p50)} ms, max ${round(summarize(restored).max)} ms`;
  report.metrics.push(
    metric({
      name: 're-check after one edit (breaks a link), p50',
      value: edited.p50,
      unit: 'ms',
      baseline: fullBaseline,
      target: { of: 'value', comparison: 'at-most', limit: RECHECK_LIMIT_MS },
      note: editNote,
    }),
    metric({
      name: 're-check after one edit (breaks a link), max',
      value: edited.max,
      unit: 'ms',
      baseline: fullBaseline,
      target: { of: 'value', comparison: 'at-most', limit: RECHECK_LIMIT_MS },
    }),
  );

  options.log(`docs: ${site.hubs.length} deletes of a page other pages link to`);
  const deleted: number[] = [];
  for (const hub of site.hubs) {
    const after = await whileDeleted(site, hub.page, () => timeOnce(() => checker.check([hub.page])));
    // Every link to it breaks, and the navigation now names a missing page.
    assertProblems(after.result, site, { broken: site.plantedBroken + hub.inbound, navigation: 1 }, `re-check after deleting ${hub.page}`, site.pageCount - 1);
    deleted.push(after.milliseconds);
    const back = await timeOnce(() => checker.check([hub.page]));
    assertProblems(back.result, site, { broken: site.plantedBroken, navigation: 0 }, `re-check after restoring ${hub.page}`);
  }
  const deletes = summarize(deleted);
  const inbound = site.hubs.map((hub) => hub.inbound).join(', ');
  report.metrics.push(
    metric({
      name: `re-check after deleting a page linked from ${inbound} pages, p50`,
      value: deletes.p50,
      unit: 'ms',
      baseline: fullBaseline,
      target: { of: 'value', comparison: 'at-most', limit: RECHECK_LIMIT_MS },
      note: `${deleted.length} deletes: ${deleted.map(round).join(', ')} ms; each reported exactly the links that broke and the navigation entry`,
    }),
    metric({
      name: 're-check after deleting a linked page, max',
      value: deletes.max,
      unit: 'ms',
      baseline: fullBaseline,
      target: { of: 'value', comparison: 'at-most', limit: RECHECK_LIMIT_MS },
    }),
  );

  await probeIndexDelete(site, checker, pool, report, options);

  options.log(`docs: first check with a base, ${count} pages`);
  const edit = site.edits[0]!;
  const editedFile = join(site.directory, edit.page);
  const original = await readFile(editedFile, 'utf8');
  await writeFile(editedFile, original.replace(edit.before, edit.after));
  try {
    const based = await timeOnce(() => fullCheck(site, pool, true));
    const answer = based.result.result;
    if (!answer.compared || answer.introduced.length !== 1 || answer.introduced[0]?.path !== edit.page || answer.existing.length !== site.plantedBroken) {
      throw new Error(
        `check with a base: expected 1 new problem in ${edit.page} and ${site.plantedBroken} existing, got ${answer.introduced.length} new (${describe(answer.introduced)}) and ${answer.existing.length} existing`,
      );
    }
    report.metrics.push(
      metric({
        name: `first check with a base, ${count} pages`,
        value: based.milliseconds,
        unit: 'ms',
        baseline: fullBaseline,
        note: `base = the commit read with git (GitTreeFiles), current = the working tree with one page edited; ${based.result.checker.pagesParsed} pages parsed for both snapshots (pages are shared by content); found the 1 new and ${answer.existing.length} existing problems`,
      }),
    );
  } finally {
    await writeFile(editedFile, original);
  }
  // Progress for whoever waits on the 25,000-page part (the report prints once, at the end).
  options.log(`docs: ${site.pageCount} pages done: ${report.metrics.map((item) => `${item.name} ${round(item.value)} ${item.unit}`).join('; ')}`);
}

/**
 * Deleting a section's index page, which other pages link to as `/section/index` or
 * `../index`: a correctness probe, not a timing. A wrong answer is reported as a missed
 * metric rather than thrown, so the suite's timings survive it.
 */
async function probeIndexDelete(
  site: GeneratedDocsSite,
  checker: DocsChecker,
  pool: ToolWorkerPool,
  report: SuiteReport,
  options: BenchOptions,
): Promise<void> {
  const { page, inbound } = site.indexPage;
  options.log(`docs: deleting ${page} (linked ${inbound} times)`);
  const after = await whileDeleted(site, page, () => checker.check([page]));
  const broken = after.introduced.filter((problem) => problem.kind === 'broken-link').length;
  const expected = site.plantedBroken + inbound;
  // Too many is as wrong as too few, but too few is the failure a stale index produces.
  if (broken > expected) throw new Error(`re-check after deleting ${page}: ${broken} broken links, more than the ${expected} there are`);
  const back = await checker.check([page]);
  assertProblems(back, site, { broken: site.plantedBroken, navigation: 0 }, `re-check after restoring ${page}`);
  const fresh = await whileDeleted(site, page, async () => (await fullCheck(site, pool)).result);
  const freshBroken = fresh.introduced.filter((problem) => problem.kind === 'broken-link').length;
  report.metrics.push(
    metric({
      name: `links found broken after deleting ${page}, re-check`,
      value: broken,
      unit: 'links',
      baseline: { name: 'full check', value: freshBroken },
      target: { of: 'value', comparison: 'at-least', limit: expected },
      note: `expected ${expected} (${site.plantedBroken} planted + ${inbound} links to the page); a full check of the same files finds ${freshBroken}`,
    }),
  );
}

/** Runs `action` while `page` is deleted from the working tree, and puts it back even if the action throws. */
async function whileDeleted<T>(site: GeneratedDocsSite, page: string, action: () => Promise<T>): Promise<T> {
  const file = join(site.directory, page);
  const original = await readFile(file);
  await rm(file);
  try {
    return await action();
  } finally {
    await writeFile(file, original);
  }
}

async function measureLargeSite(pageCount: number, pool: ToolWorkerPool, options: BenchOptions, report: SuiteReport): Promise<void> {
  const site = await generate(pageCount, options);
  describeSite(site, report);
  const floor = await measureFloor(site);
  const count = site.pageCount.toLocaleString('en-US');
  options.log(`docs: full check of ${count} pages`);
  const full = await timeOnce(() => fullCheck(site, pool));
  assertProblems(full.result.result, site, { broken: site.plantedBroken, navigation: 0 }, 'full check');
  report.metrics.push(
    metric({
      name: `full check, ${count} pages`,
      value: full.milliseconds,
      unit: 'ms',
      baseline: { name: 'floor', value: floor },
      target: { of: 'value', comparison: 'at-most', limit: FULL_LARGE_LIMIT_MS },
      note: `one run; ${full.result.checker.pagesParsed} pages parsed, ${full.result.result.introduced.length} problems found (the ${site.plantedBroken} planted)`,
    }),
  );
}

async function generate(pageCount: number, options: BenchOptions): Promise<GeneratedDocsSite> {
  options.log(`docs: generating (or reusing) a ${pageCount.toLocaleString('en-US')}-page site`);
  const generated = await timeOnce(() => generateDocsSite(join(options.dataDir, `docs-site-${pageCount}`), pageCount));
  options.log(`docs: site ready in ${(generated.milliseconds / 1000).toFixed(1)} s`);
  return generated.result;
}

function describeSite(site: GeneratedDocsSite, report: SuiteReport): void {
  report.context.push(
    `site of ${site.pageCount.toLocaleString('en-US')} pages (${(site.pageBytes / 2 ** 20).toFixed(1)} MiB of MDX, ${site.linkCount.toLocaleString('en-US')} internal links, ${site.plantedBroken} of them broken on purpose), ` +
      `${site.draftCount} ignored drafts, 50 redirects, docs.json with a $ref file; commit ${site.commit.slice(0, 10)}`,
  );
}

/** `git ls-files` and every page's bytes: milliseconds, best of three (the page cache is warm for both sides). */
async function measureFloor(site: GeneratedDocsSite): Promise<number> {
  const once = async (): Promise<number> => {
    const { stdout } = await run('git', ['ls-files', '-z'], { cwd: site.directory, maxBuffer: 256 * 1024 * 1024 });
    const pages = stdout.split('\0').filter((path) => /\.mdx?$/.test(path));
    let next = 0;
    let bytes = 0;
    const reader = async (): Promise<void> => {
      while (next < pages.length) bytes += (await readFile(join(site.directory, pages[next++]!))).length;
    };
    await Promise.all(Array.from({ length: READ_CONCURRENCY }, reader));
    return bytes;
  };
  const timed = await timeRepeated(once, { warmup: 1, iterations: 3 });
  return timed.summary.min;
}

async function fullCheck(site: GeneratedDocsSite, pool: ToolWorkerPool, withBase = false): Promise<{ checker: DocsChecker; result: DocsCheckResult }> {
  const checker = new DocsChecker({
    current: new WorkspaceFiles(site.directory),
    ...(withBase ? { base: async () => new GitTreeFiles(site.directory, site.commit) } : {}),
    runner: poolDocsRunner(pool),
    limits: LIMITS,
    timeoutMs: DEFAULT_TOOL_LIMITS.checkDocsTimeoutMs,
  });
  return { checker, result: await checker.check() };
}

/** Throws unless the check (without a base) found exactly what the generator planted. */
function assertProblems(
  result: DocsCheckResult,
  site: GeneratedDocsSite,
  expected: { broken: number; navigation: number },
  what: string,
  pages = site.pageCount,
): void {
  const broken = result.introduced.filter((problem) => problem.kind === 'broken-link').length;
  const navigation = result.introduced.filter((problem) => problem.kind === 'navigation').length;
  const other = result.introduced.filter((problem) => problem.kind !== 'broken-link' && problem.kind !== 'navigation');
  if (result.pagesChecked !== pages || result.truncated || broken !== expected.broken || navigation !== expected.navigation || other.length > 0) {
    throw new Error(
      `${what}: expected ${pages} pages, ${expected.broken} broken links and ${expected.navigation} navigation problems; ` +
        `got ${result.pagesChecked} pages${result.truncated ? ' (truncated)' : ''}, ${broken} broken links, ${navigation} navigation problems, ${other.length} others. First problems: ${describe(result.introduced)}`,
    );
  }
}

function describe(problems: DocsCheckResult['introduced']): string {
  return problems
    .slice(0, 5)
    .map((problem) => `${problem.path}:${problem.line ?? '?'} ${problem.kind} ${problem.message}`)
    .join(' | ');
}

function round(milliseconds: number): number {
  return Math.round(milliseconds);
}
