import { createHash } from 'node:crypto';
import type { DocsProblem } from './docs-problem.js';
import type { DocsTaskRunner } from './docs-task-runner.js';
import type { PageAnalysis, PageLink } from './page-analysis.js';
import { decodeUtf8, type SourceFile } from './site-source.js';
import type { TaskOutcome } from './task-outcome.js';
import type { CheckLimits } from './check-limits.js';

/** What a page says on its own, before its links are judged against a site. */
export interface PageContent {
  /** Content hash, or null when the page could not be read. */
  hash: string | null;
  /** Problems of the page itself: syntax, frontmatter, limits. */
  own: DocsProblem[];
  links: PageLink[];
  /** The page ran out of time or memory, or crashed its worker: another attempt may fare better. */
  transient?: true;
}

type Analysed = Omit<PageContent, 'hash'>;

/** Cached results per distinct content; above this many the cache starts over. */
const MAX_CACHED = 200_000;

/**
 * Page analyses by content: the base snapshot and the working tree share almost every
 * page, and a page edited back to what it was is not parsed again. Keyed by a hash of the
 * bytes and the format (`.md` and `.mdx` parse differently); a result is stored without
 * its path, which is put back for each page that uses it.
 */
export class PageAnalysisCache {
  private readonly entries = new Map<string, Promise<Analysed>>();
  /** Parses actually run (for tests and the benchmark). */
  parsed = 0;

  constructor(
    private readonly runner: DocsTaskRunner,
    private readonly limits: CheckLimits,
  ) {}

  /** The content of one page from what reading it gave. */
  async content(path: string, file: SourceFile): Promise<PageContent> {
    if (file.status === 'missing')
      return { hash: null, own: [{ path, kind: 'check-limit', message: `${path} could not be read, so it was not checked.` }], links: [] };
    if (file.status === 'too-large') {
      return {
        hash: null,
        own: [
          {
            path,
            kind: 'check-limit',
            message: `${path} is ${file.size} bytes; the docs check parses pages of at most ${this.limits.maxPageBytes} bytes, so it was not checked. Split it into smaller pages.`,
          },
        ],
        links: [],
      };
    }
    const hash = createHash('sha1').update(file.bytes).digest('base64');
    const key = `${/\.mdx$/i.test(path) ? 'mdx' : 'md'}:${hash}`;
    let entry = this.entries.get(key);
    if (entry === undefined) {
      if (this.entries.size >= MAX_CACHED) this.entries.clear();
      entry = this.analyze(path, file.bytes);
      this.entries.set(key, entry);
    }
    const { own, links, transient } = await entry;
    return { hash, own: own.map((problem) => (problem.path === path ? problem : { ...problem, path })), links, ...(transient ? { transient } : {}) };
  }

  private async analyze(path: string, bytes: Uint8Array): Promise<Analysed> {
    const text = pageText(bytes);
    if (text === undefined) return { own: [{ path, kind: 'mdx-syntax', message: `${path} is binary or not UTF-8 text.` }], links: [] };
    this.parsed += 1;
    const outcome = await this.runner.analyzePage({ path, text }, this.limits.pageTimeoutMs);
    if (outcome.status !== 'done') {
      const own: DocsProblem[] = [{ path, kind: 'check-limit', message: limitMessage(path, outcome) }];
      return outcome.status === 'failure' ? { own, links: [] } : { own, links: [], transient: true };
    }
    const analysis: PageAnalysis = outcome.result;
    const own = analysis.problems.slice(0, this.limits.maxProblemsPerPage);
    if (analysis.problems.length > own.length) {
      own.push({ path, kind: 'limit', message: `${path} has ${analysis.problems.length} problems; only the first ${own.length} are listed.` });
    }
    return { own, links: analysis.links };
  }
}

/** Page text, or undefined for binary content (a NUL early on) or bytes that are not UTF-8. */
function pageText(bytes: Uint8Array): string | undefined {
  return bytes.subarray(0, 8000).includes(0) ? undefined : decodeUtf8(bytes);
}

export function limitMessage(file: string, outcome: Exclude<TaskOutcome<unknown>, { status: 'done' }>): string {
  switch (outcome.status) {
    case 'timeout':
      return `Checking ${file} took longer than ${outcome.timeoutMs} ms and was stopped, so it was not checked; the page is too large or too deeply nested for the MDX parser. Simplify it or split it into smaller pages.`;
    case 'out-of-memory':
      return `Checking ${file} needed more than ${outcome.maxHeapMb} MB of memory and was stopped, so it was not checked. Simplify it or split it into smaller pages.`;
    case 'failure':
      return `${file} could not be checked: ${outcome.message}`;
    case 'crashed':
      // The worker's own message may carry host paths; the reader only needs to know.
      return `Checking ${file} failed inside the checker, so it was not checked.`;
  }
}
