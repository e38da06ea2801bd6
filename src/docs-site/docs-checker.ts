import type { DocsProblem, DocsProblemKind } from './docs-problem.js';
import type { DocsTaskRunner } from './docs-task-runner.js';
import type { SiteSource } from './site-source.js';
import type { CheckLimits } from './check-limits.js';
import { PageAnalysisCache } from './page-records.js';
import { SiteState } from './site-state.js';
import { countByKind, splitProblems } from './problem-split.js';

export interface DocsCheckerOptions {
  /** The files being checked (the job's working tree, or the CLI's directory). */
  current: SiteSource;
  /**
   * The snapshot the change started from (the job's base ref, the CLI's `--base`): its
   * problems are pre-existing. Without one, every problem counts as new.
   */
  base?: () => Promise<SiteSource>;
  runner: DocsTaskRunner;
  limits: CheckLimits;
  /** Budget of building one snapshot; pages left when it is spent are reported as unchecked. */
  timeoutMs: number;
  /** Progress of the current snapshot's first build, for long command-line runs. */
  onProgress?: (checked: number, total: number) => void;
}

export interface DocsCheckResult {
  /** Pages whose problems the result covers. */
  pagesChecked: number;
  /** Problems the change introduced (all of them without a base), in report order. */
  introduced: DocsProblem[];
  /** Problems the base already had. */
  existing: DocsProblem[];
  existingByKind: Partial<Record<DocsProblemKind, number>>;
  /** Whether a base was compared against. */
  compared: boolean;
  /** A base was asked for but could not be read (its ref is gone): every problem is listed as new. */
  baseFailed: boolean;
  /** Pages were left out for time or count (a `limit` problem says which). */
  truncated: boolean;
}

/**
 * The docs check of one change: the base snapshot is indexed once, the current one once
 * and then kept up to date as files change, and every result splits the problems the
 * change introduced from those that were already there. Page analyses are shared between
 * the two snapshots by content, so pages the change did not touch are parsed once.
 */
export class DocsChecker {
  private readonly cache: PageAnalysisCache;
  private current: Promise<SiteState> | undefined;
  private base: Promise<DocsProblem[] | null> | undefined;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: DocsCheckerOptions) {
    this.cache = new PageAnalysisCache(options.runner, options.limits);
  }

  /** Parses run so far (shared by both snapshots). */
  get pagesParsed(): number {
    return this.cache.parsed;
  }

  /**
   * Checks the current files. `changed` lists the paths changed since the previous call;
   * the first call indexes everything and ignores it.
   */
  async check(changed: readonly string[] = []): Promise<DocsCheckResult> {
    const state = await this.updated(changed);
    const problems = state.problems();
    const baseProblems = await this.base;
    const { introduced, existing } = baseProblems == null ? { introduced: problems, existing: [] } : splitProblems(problems, baseProblems);
    return {
      pagesChecked: state.pagesChecked,
      introduced,
      existing,
      existingByKind: countByKind(existing),
      compared: baseProblems != null,
      baseFailed: baseProblems === null && this.options.base !== undefined,
      truncated: problems.some((problem) => problem.kind === 'limit' && problem.path === '.'),
    };
  }

  /**
   * The current snapshot's index with these changes taken in (move_file reads the links
   * pointing at a page from it). Calls run one at a time: an update is not reentrant.
   */
  updated(changed: readonly string[] = []): Promise<SiteState> {
    const run = this.queue.then(async () => {
      const first = this.current === undefined;
      this.current ??= this.buildState(this.options.current, this.options.onProgress);
      // The base is indexed beside the current snapshot; a base that cannot be had (the
      // ref is gone) leaves every problem new rather than failing the check.
      this.base ??=
        this.options.base === undefined
          ? Promise.resolve(null)
          : this.options
              .base()
              .then((source) => this.buildState(source))
              .then(
                (state) => state.problems(),
                () => null,
              );
      const state = await this.current;
      if (!first) await state.update(changed, AbortSignal.timeout(this.options.timeoutMs));
      return state;
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  private buildState(source: SiteSource, onProgress?: (checked: number, total: number) => void): Promise<SiteState> {
    const { runner, limits, timeoutMs } = this.options;
    return SiteState.build({
      source,
      runner,
      cache: this.cache,
      limits,
      signal: AbortSignal.timeout(timeoutMs),
      ...(onProgress === undefined ? {} : { onProgress }),
    });
  }
}
