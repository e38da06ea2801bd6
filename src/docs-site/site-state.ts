import type { DocsProblem } from './docs-problem.js';
import type { DocsTaskRunner } from './docs-task-runner.js';
import type { SiteSource, SourceFile } from './site-source.js';
import type { CheckLimits } from './check-limits.js';
import type { PageLink } from './page-analysis.js';
import { resolveLink } from './link-resolver.js';
import { navigationProblems } from './navigation-problems.js';
import { PageAnalysisCache, type PageContent } from './page-records.js';
import { collectProblems, SiteIndex, type PageRecord } from './site-index.js';
import { buildSite, findSiteRoots, MAX_SITES, siteOf, type SiteBuild } from './site-build.js';
import { basenameOf, dirnameOf, isPageFile, relativeToRoot, SITE_CONFIG_NAMES, slugKey } from './site-paths.js';

export interface StateContext {
  source: SiteSource;
  runner: DocsTaskRunner;
  cache: PageAnalysisCache;
  limits: CheckLimits;
  /** Pages not parsed when this fires are reported as unchecked. */
  signal: AbortSignal;
  /** Told after each batch of pages of a full build. */
  onProgress?: (checked: number, total: number) => void;
}

/** Pages read and parsed together; the runner works through them `size` at a time. */
const PAGE_BATCH = 64;
/** Links judged between two turns of the event loop (a few ms of work). */
const RESOLVE_SLICE = 2_000;
const STRUCTURAL_NAMES = new Set<string>([...SITE_CONFIG_NAMES, '.mintignore']);

/**
 * The docs check's index of one snapshot of a repository: its sites (configuration,
 * redirects, navigation, generated pages, versions and languages), every page's own
 * problems and links, and which pages look up which paths. Built once; after edits,
 * `update` parses only the changed pages and judges again only their links and the links
 * of the pages that look up a path that came or went. A change to a configuration, a
 * `$ref` file, .mintignore or an OpenAPI spec rebuilds the sites but keeps every page that
 * did not change.
 */
export class SiteState {
  private files = new Set<string>();
  private sites: SiteBuild[] = [];
  private readonly pages = new Map<string, PageRecord>();
  private readonly dependents = new Map<string, Set<string>>();
  private navigation: DocsProblem[] = [];
  private limits: DocsProblem[] = [];
  /** Pages skipped for time or count: an update must then rebuild. */
  private complete = true;

  private constructor(private readonly context: StateContext) {}

  static async build(context: StateContext): Promise<SiteState> {
    const state = new SiteState(context);
    await state.rebuild(await context.source.listFiles(), new Set());
    return state;
  }

  /**
   * A state that starts as a copy of a kept index (another snapshot's, e.g. the base
   * commit's) and reads and parses through `context` from then on: `update` with the paths
   * where `context.source` differs from the index's snapshot makes it that source's state,
   * and never changes the index.
   */
  static fromIndex(index: SiteIndex, context: StateContext): SiteState {
    const state = new SiteState(context);
    const data = index.copy();
    state.files = data.files;
    state.sites = data.sites;
    for (const [path, record] of data.pages) state.pages.set(path, record);
    for (const [key, set] of data.dependents) state.dependents.set(key, set);
    state.navigation = data.navigation;
    state.limits = data.limits;
    state.complete = data.complete;
    return state;
  }

  /** This state's index as it is now, to be kept; this state must not be updated afterwards (the index shares its parts). */
  toIndex(): SiteIndex {
    return new SiteIndex({
      files: this.files,
      sites: this.sites,
      pages: this.pages,
      dependents: this.dependents,
      navigation: this.navigation,
      limits: this.limits,
      complete: this.complete,
    });
  }

  /** Number of pages the current problems cover. */
  get pagesChecked(): number {
    return this.pages.size;
  }

  /** Every problem of the snapshot, in a stable order (copies: page contents are shared between snapshots). */
  problems(): DocsProblem[] {
    return collectProblems({ sites: this.sites, navigation: this.navigation, pages: this.pages, limits: this.limits });
  }

  /** The links of a page, with their offsets, for tools that rewrite them (move_file). */
  linksOf(page: string): readonly PageLink[] {
    return this.pages.get(page)?.content.links ?? [];
  }

  /** The site a workspace path belongs to (deepest docs root), if any. */
  siteOf(path: string): SiteBuild | undefined {
    return siteOf(this.sites, path);
  }

  /** Pages with a link that looked up `key` (docs-root-relative slug key) in the site at `docsRoot`. */
  pagesLookingUp(docsRoot: string, key: string): string[] {
    return [...(this.dependents.get(`${docsRoot}\0${key}`) ?? [])].sort();
  }

  /** Takes in changes to these paths (written, edited, deleted or moved), reading only them. */
  async update(changed: readonly string[], signal: AbortSignal = this.context.signal): Promise<void> {
    if (changed.length === 0) return;
    const read = await this.context.source.readFiles(changed, this.context.limits.maxPageBytes);
    const files = new Set(this.files);
    for (const path of changed) {
      if (read.get(path)?.status === 'missing') files.delete(path);
      else files.add(path);
    }
    const structural = !this.complete || changed.some((path) => STRUCTURAL_NAMES.has(basenameOf(path)) || this.sites.some((site) => site.structural.has(path)));
    if (structural) {
      await this.rebuild([...files].sort(), new Set(changed), read, signal);
      return;
    }
    this.files = files;
    const touchedKeys: string[] = [];
    const toJudge = new Set<string>();
    for (const path of changed) {
      const site = siteOf(this.sites, path);
      if (site === undefined) continue;
      const relative = relativeToRoot(path, site.docsRoot);
      const present = files.has(path) && !site.ignore(relative);
      const wasPresent = site.model.files.has(relative);
      if (present !== wasPresent) touchedKeys.push(`${site.docsRoot}\0${slugKey(relative)}`);
      if (present) site.model.files.add(relative);
      else site.model.files.delete(relative);
      if (!isPageFile(path)) continue;
      if (present) {
        this.dropKeys(path);
        this.pages.set(path, { site, content: await this.context.cache.content(path, read.get(path) ?? { status: 'missing' }), linkProblems: [], keys: [] });
        toJudge.add(path);
      } else {
        this.dropKeys(path);
        this.pages.delete(path);
      }
    }
    for (const key of touchedKeys) for (const page of this.dependents.get(key) ?? []) toJudge.add(page);
    await this.judgeLinks([...toJudge]);
    this.navigation = await this.navigationOf(this.sites);
  }

  private async rebuild(
    listing: readonly string[],
    changed: ReadonlySet<string>,
    read?: Map<string, SourceFile>,
    signal: AbortSignal = this.context.signal,
  ): Promise<void> {
    const { source, runner, limits } = this.context;
    const roots = findSiteRoots(listing);
    const sites: SiteBuild[] = [];
    for (const root of roots) sites.push(await buildSite({ root, files: listing, roots, source, runner, limits }));
    const previous = new Map(this.pages);
    this.files = new Set(listing);
    this.sites = sites;
    this.pages.clear();
    this.dependents.clear();
    this.limits = [];
    this.complete = true;
    const configFolders = new Set(listing.filter((path) => STRUCTURAL_NAMES.has(basenameOf(path)) && basenameOf(path) !== '.mintignore').map(dirnameOf));
    if (configFolders.size > MAX_SITES) {
      this.limits.push({
        path: '.',
        kind: 'limit',
        message: `${configFolders.size} folders hold a docs.json or mint.json; only ${MAX_SITES} sites are checked.`,
      });
    }

    const pages: Array<{ path: string; site: SiteBuild }> = [];
    for (const path of listing) {
      if (!isPageFile(path)) continue;
      const site = siteOf(sites, path);
      // A page outside every docs root, or excluded, is not published: not checked.
      if (site?.model.files.has(relativeToRoot(path, site.docsRoot))) pages.push({ path, site });
    }
    const checked = pages.slice(0, limits.maxPages);
    if (pages.length > checked.length) {
      this.complete = false;
      this.limits.push({ path: '.', kind: 'limit', message: `Only the first ${checked.length} of ${pages.length} pages were checked.` });
    }
    let done = 0;
    // One listener for the whole build (one per page made Node warn of a leak).
    const stopped = new Promise<undefined>((resolve) => signal.addEventListener('abort', () => resolve(undefined), { once: true }));
    for (let start = 0; start < checked.length && !signal.aborted; start += PAGE_BATCH) {
      const batch = checked.slice(start, start + PAGE_BATCH);
      const reused = (path: string): PageContent | undefined => (changed.has(path) ? undefined : (previous.get(path)?.content ?? undefined));
      const fresh = batch.filter(({ path }) => reused(path)?.hash == null);
      const contents =
        fresh.length === 0
          ? new Map<string, SourceFile>()
          : await this.readFresh(
              fresh.map(({ path }) => path),
              read,
            );
      // A page still being parsed when the budget runs out is left unchecked, not waited for.
      const analysed = await Promise.all(
        batch.map(({ path }) => {
          const known = reused(path);
          return known?.hash != null
            ? Promise.resolve(known)
            : Promise.race([this.context.cache.content(path, contents.get(path) ?? { status: 'missing' }), stopped]);
        }),
      );
      batch.forEach(({ path, site }, index) => {
        const content = analysed[index];
        if (content === undefined) return;
        this.pages.set(path, { site, content, linkProblems: [], keys: [] });
        done += 1;
      });
      this.context.onProgress?.(done, checked.length);
    }
    if (done < checked.length) {
      this.complete = false;
      this.limits.push({
        path: '.',
        kind: 'limit',
        message: `The check ran out of time (${done} of ${checked.length} pages checked); the others were not checked. Fix these and run it again.`,
      });
    }
    await this.judgeLinks([...this.pages.keys()]);
    this.navigation = await this.navigationOf(sites);
  }

  private async readFresh(paths: string[], known: Map<string, SourceFile> | undefined): Promise<Map<string, SourceFile>> {
    const missing = known === undefined ? paths : paths.filter((path) => !known.has(path));
    const read = missing.length === 0 ? new Map<string, SourceFile>() : await this.context.source.readFiles(missing, this.context.limits.maxPageBytes);
    if (known !== undefined) for (const path of paths) if (known.has(path)) read.set(path, known.get(path)!);
    return read;
  }

  private async navigationOf(sites: readonly SiteBuild[]): Promise<DocsProblem[]> {
    const problems: DocsProblem[] = [];
    for (const site of sites) for (const problem of await navigationProblems(site, this.files)) problems.push(problem);
    return problems;
  }

  /** Judges the links of these pages against their site, recording what each looked up. */
  private async judgeLinks(pages: readonly string[]): Promise<void> {
    let sinceYield = 0;
    for (const path of pages) {
      const record = this.pages.get(path);
      if (record === undefined) continue;
      if (sinceYield >= RESOLVE_SLICE) {
        sinceYield = 0;
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
      sinceYield += record.content.links.length + 1;
      this.dropKeys(path);
      const { site } = record;
      const relative = relativeToRoot(path, site.docsRoot);
      const problems: DocsProblem[] = [];
      const keys = new Set<string>();
      for (const link of record.content.links) {
        const { verdict, keys: looked } = resolveLink(site.model, relative, link.target);
        for (const key of looked) keys.add(`${site.docsRoot}\0${key}`);
        if (verdict.status === 'broken') problems.push({ path, line: link.line, kind: 'broken-link', message: verdict.message });
      }
      record.linkProblems = problems.slice(0, this.context.limits.maxProblemsPerPage);
      record.keys = [...keys];
      for (const key of record.keys) {
        let set = this.dependents.get(key);
        if (set === undefined) this.dependents.set(key, (set = new Set()));
        set.add(path);
      }
    }
  }

  private dropKeys(page: string): void {
    const record = this.pages.get(page);
    if (record === undefined) return;
    for (const key of record.keys) this.dependents.get(key)?.delete(page);
    record.keys = [];
  }
}
