import type { DocsProblem, DocsProblemKind } from './docs-problem.js';
import type { DocsTaskRunner } from './docs-task-runner.js';
import type { SiteSource } from './site-source.js';
import type { CheckLimits } from './check-limits.js';
import { PageAnalysisCache } from './page-records.js';
import { SiteState } from './site-state.js';
import type { SiteIndex } from './site-index.js';
import type { BaseIndexCache } from './base-index-cache.js';
import { countByKind, splitProblems } from './problem-split.js';
import { basenameOf } from './site-paths.js';

/** A base named by its commit: its index can be kept for other checks of that commit, and the current state derived from it. */
export interface CommitBase {
  source: SiteSource;
  /** Full commit id: it names the whole tree, so it keys the kept index. */
  commit: string;
  /**
   * Paths where the current files started out different from the commit, before any
   * change handed to `check`/`updated` (a follow-up's branch); none when the current
   * files are a fresh checkout of the commit.
   */
  startDiff: () => Promise<string[]>;
}

export interface DocsCheckerOptions {
  /**
   * The files being checked (the job's working tree, or the CLI's directory). With a
   * `CommitBase` and `keptBases`, every change to them after the checkout must reach
   * `check`/`updated` as a changed path: the current state is the base's plus those.
   */
  current: SiteSource;
  /**
   * The snapshot the change started from (the job's base ref, the CLI's `--base`): its
   * problems are pre-existing. Without one, every problem counts as new.
   */
  base?: () => Promise<SiteSource | CommitBase>;
  /** Indexes of base commits shared by the checks of one process (see base-index-cache.ts). */
  keptBases?: BaseIndexCache;
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
 *
 * With a base commit and a cache of kept indexes, the base's index comes from the cache
 * when another check of that commit built it (nothing is parsed), and the current state
 * is a copy of it updated with the changed paths (only those are read and parsed, and
 * only the links that could have changed are judged again) instead of a second full build.
 */
export class DocsChecker {
  private readonly cache: PageAnalysisCache;
  private current: Promise<SiteState> | undefined;
  private base: Promise<readonly DocsProblem[] | null> | undefined;
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
      if (this.current === undefined) {
        this.current = this.start(changed);
        return this.current;
      }
      const state = await this.current;
      await state.update(changed, AbortSignal.timeout(this.options.timeoutMs));
      return state;
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** The first state of the current files, and the base's problems beside it. */
  private async start(changed: readonly string[]): Promise<SiteState> {
    const { current, onProgress, keptBases } = this.options;
    const cold = (): Promise<SiteState> => this.buildState(current, onProgress);
    // A base that cannot be had (the ref is gone) leaves every problem new rather than failing the check.
    const base = await this.options.base?.().catch(() => null);
    if (base === undefined || base === null) {
      this.base = Promise.resolve(null);
      return cold();
    }
    if (!isCommitBase(base) || keptBases === undefined) {
      // Indexed beside the current snapshot, sharing page analyses by content.
      this.base = this.buildState(isCommitBase(base) ? base.source : base).then(
        (state) => state.problems(),
        () => null,
      );
      return cold();
    }
    const kept = keptBases.get(keptBaseKey(base.commit, this.options.limits), async () => (await this.buildState(base.source)).toIndex());
    this.base = kept.then(
      ({ problems }) => problems,
      () => null,
    );
    const derived = await kept.then(
      ({ index }) => this.derive(index, base, changed),
      () => undefined,
    );
    return derived ?? cold();
  }

  /**
   * The current state as the base's index plus the paths that differ from it, or
   * undefined when that is not known to give what a full build would: the index is
   * incomplete, the checkout may have rewritten files (`.gitattributes` can convert line
   * endings and encodings), or the current files hold a path nobody reported.
   */
  private async derive(index: SiteIndex, base: CommitBase, changed: readonly string[]): Promise<SiteState | undefined> {
    if (!index.complete) return undefined;
    for (const path of index.files) if (basenameOf(path) === '.gitattributes') return undefined;
    const [listing, startDiff] = await Promise.all([this.options.current.listFiles(), base.startDiff()]);
    const reported = new Set([...changed, ...startDiff]);
    const present = new Set(listing);
    for (const path of listing) if (!index.hasFile(path) && !reported.has(path)) return undefined;
    // Files of the commit the current source does not list (build output it skips) are gone from it.
    const differing = new Set(reported);
    for (const path of index.files) if (!present.has(path)) differing.add(path);
    const { runner, limits, timeoutMs } = this.options;
    const signal = AbortSignal.timeout(timeoutMs);
    const state = SiteState.fromIndex(index, { source: this.options.current, runner, cache: this.cache, limits, signal });
    await state.update([...differing].sort(), signal);
    return state;
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

function isCommitBase(base: SiteSource | CommitBase): base is CommitBase {
  return typeof (base as Partial<CommitBase>).startDiff === 'function';
}

/** The limits change what a check reports, so an index is kept per commit and limits. */
function keptBaseKey(commit: string, limits: CheckLimits): string {
  return `${commit}\0${JSON.stringify(limits)}`;
}
