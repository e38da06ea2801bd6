import path from 'node:path';
import { realpath } from 'node:fs/promises';
import type { ToolContext } from './tool-context.js';
import type { DocsCheckReport, DocsProblem } from './docs-problem.js';
import { globWorkspace } from './workspace-glob.js';
import { SITE_CONFIG_NAMES } from './navigation-check.js';
import { describeSite, type FileCheckResult } from './site-check.js';
import type { TaskOutcome } from './tool-worker-pool.js';

// Dependencies and build output are not the documentation being edited.
const IGNORED = ['**/node_modules/**', '**/.next/**', '**/.mintlify/**'];

/**
 * Checks the documentation in the workspace: MDX syntax, YAML frontmatter, internal links
 * and the navigation of every docs.json / mint.json. Reads only files listed by the
 * sandboxed glob, never following symbolic links.
 *
 * Every page and configuration is checked in a tool worker (see tool-worker-pool.ts):
 * their cost depends on their content (100 KB of `>` kept the MDX compiler busy for 76 s,
 * a YAML file of many aliases for a minute), so none of it runs on the thread answering
 * requests. A page above `maxCheckedPageBytes`, or whose check runs past
 * `pageCheckTimeoutMs` or the worker's memory, is reported as a `check-limit` problem and
 * the check goes on; the whole run stops after `checkDocsTimeoutMs`.
 */
export interface CheckDocsOptions {
  /**
   * Compile and link-check only these pages (navigation is always checked in full).
   * Compiling is the expensive part: a large site takes seconds.
   */
  pages?: readonly string[];
}

export async function checkDocs(context: ToolContext, options: CheckDocsOptions = {}): Promise<DocsCheckReport> {
  const { limits, workers } = context;
  const root = await realpath(context.workspace);
  const files = await globWorkspace(root, '**/*', { maxPatternLength: limits.maxQueryLength, ignore: IGNORED });
  const configs = files.filter((file) => (SITE_CONFIG_NAMES as readonly string[]).includes(path.posix.basename(file)));
  const docsRoots = configs.map((config) => path.posix.dirname(config)).map((directory) => (directory === '.' ? '' : directory));
  const pages = files.filter((file) => /\.mdx?$/i.test(file));
  const only = options.pages === undefined ? null : new Set(options.pages);
  const checked = (only === null ? pages : pages.filter((page) => only.has(page))).slice(0, limits.maxScannedFiles);

  const collector = new ProblemCollector(limits.maxProblems);
  const budget = AbortSignal.timeout(limits.checkDocsTimeoutMs);
  const siteId = workers.openSite(describeSite(files, docsRoots));
  const request = (relative: string, maxBytes: number) => ({
    siteId,
    path: relative,
    absolute: path.join(root, ...relative.split('/')),
    maxBytes,
    maxProblems: limits.maxProblems,
  });
  let filesChecked = 0;
  try {
    await runInOrder(
      configs,
      workers.size,
      (config) => workers.run({ kind: 'check-config', ...request(config, limits.maxFileBytes) }, limits.pageCheckTimeoutMs),
      (config, outcome) => {
        collector.take(config, outcome);
        return !budget.aborted;
      },
    );
    if (!collector.full && !budget.aborted) {
      await runInOrder(
        checked,
        workers.size,
        (page) => workers.run({ kind: 'check-page', ...request(page, limits.maxCheckedPageBytes) }, limits.pageCheckTimeoutMs),
        (page, outcome) => {
          filesChecked += 1;
          collector.take(page, outcome);
          return !collector.full && !budget.aborted;
        },
      );
    }
  } finally {
    workers.closeSite(siteId);
  }

  let truncated = false;
  const candidates = only === null ? pages.length : pages.filter((page) => only.has(page)).length;
  if (candidates > checked.length) {
    truncated = true;
    collector.force({ path: '.', kind: 'limit', message: `Only the first ${checked.length} of ${candidates} pages were checked.` });
  }
  if (budget.aborted && filesChecked < checked.length) {
    truncated = true;
    collector.force({
      path: '.',
      kind: 'limit',
      message: `The check stopped after ${Number((limits.checkDocsTimeoutMs / 1000).toFixed(1))} s (${filesChecked} of ${checked.length} pages checked); fix these and run it again.`,
    });
  } else if (collector.dropped > 0 || filesChecked < checked.length) {
    truncated = true;
    collector.force({
      path: '.',
      kind: 'limit',
      message: `The check stopped after ${limits.maxProblems} problems (${filesChecked} of ${checked.length} pages checked); fix these and run it again.`,
    });
  }
  return { problems: collector.problems, filesChecked, truncated };
}

/**
 * Starts `start` for the items with at most `concurrency` running, and hands the
 * outcomes to `take` in the items' order (so problems come out in page order) until
 * `take` returns false; outcomes still running then are left to finish unread.
 */
async function runInOrder<Item, Outcome>(
  items: readonly Item[],
  concurrency: number,
  start: (item: Item) => Promise<Outcome>,
  take: (item: Item, outcome: Outcome) => boolean,
): Promise<void> {
  const running: Promise<Outcome>[] = [];
  let next = 0;
  let taken = 0;
  const fill = (): void => {
    while (running.length < concurrency && next < items.length) {
      const started = start(items[next++]!);
      // One left unread must not become an unhandled rejection when the pool is closed.
      started.catch(() => undefined);
      running.push(started);
    }
  };
  fill();
  while (running.length > 0) {
    const outcome = await running.shift()!;
    if (!take(items[taken++]!, outcome)) return;
    fill();
  }
}

class ProblemCollector {
  readonly problems: DocsProblem[] = [];
  dropped = 0;
  constructor(private readonly max: number) {}

  get full(): boolean {
    return this.problems.length >= this.max;
  }

  add(problem: DocsProblem): void {
    if (this.full) this.dropped += 1;
    else this.problems.push(problem);
  }

  addAll(problems: readonly DocsProblem[]): void {
    for (const problem of problems) this.add(problem);
  }

  /** The problems of one page or configuration, or a `check-limit` problem saying why it has none. */
  take(file: string, outcome: TaskOutcome<FileCheckResult>): void {
    if (outcome.status === 'done') {
      this.addAll(outcome.result.problems);
      this.dropped += outcome.result.dropped;
      return;
    }
    this.add({ path: file, kind: 'check-limit', message: limitMessage(file, outcome) });
  }

  /** Adds a note about the caps even when the list is full, so truncation is never silent. */
  force(problem: DocsProblem): void {
    this.problems.push(problem);
  }
}

function limitMessage(file: string, outcome: Exclude<TaskOutcome<FileCheckResult>, { status: 'done' }>): string {
  switch (outcome.status) {
    case 'timeout':
      return `Checking ${file} took longer than ${outcome.timeoutMs} ms and was stopped, so it was not checked; the page is too large or too deeply nested for the MDX compiler. Simplify it or split it into smaller pages.`;
    case 'out-of-memory':
      return `Checking ${file} needed more than ${outcome.maxHeapMb} MB of memory and was stopped, so it was not checked. Simplify it or split it into smaller pages.`;
    case 'failure':
      return `${file} could not be checked: ${outcome.message}`;
    case 'crashed':
      // The worker's own message may carry host paths; the model only needs to know.
      return `Checking ${file} failed inside the checker, so it was not checked.`;
  }
}
