import { compareProblems, type DocsProblem } from './docs-problem.js';
import type { PageContent } from './page-records.js';
import type { SiteBuild } from './site-build.js';

/** One page of a snapshot's index: what it says on its own and what its links found. */
export interface PageRecord {
  site: SiteBuild;
  content: PageContent;
  linkProblems: DocsProblem[];
  /** `docsRoot NUL slugKey` of everything the page's links looked up. */
  keys: string[];
}

/** Everything a SiteState knows about its snapshot, without the means to read or parse more. */
export interface SiteIndexData {
  files: Set<string>;
  sites: SiteBuild[];
  pages: Map<string, PageRecord>;
  dependents: Map<string, Set<string>>;
  navigation: DocsProblem[];
  limits: DocsProblem[];
  /** False when pages were skipped for time or count. */
  complete: boolean;
}

/**
 * A finished snapshot's index, kept apart from the job that built it: nothing ever
 * changes it, so one index can stand for the same commit in any number of jobs. A
 * SiteState is made from a copy (`SiteState.fromIndex`) and updates only the copy.
 */
export class SiteIndex {
  /** Rough bytes held (strings at two bytes a character, plus per-object overhead), for a cache's memory bound. */
  readonly approximateBytes: number;

  /**
   * Every page was checked and none ran out of time or memory: what another job would
   * find too. An index that is not is used by the job that built it, never kept.
   */
  readonly reliable: boolean;

  constructor(private readonly data: SiteIndexData) {
    let transient = false;
    for (const record of data.pages.values()) {
      freezeContent(record.content);
      transient ||= record.content.transient === true;
    }
    this.reliable = data.complete && !transient;
    this.approximateBytes = approximateBytes(data);
  }

  /** Every page was checked (none skipped for time or count). */
  get complete(): boolean {
    return this.data.complete;
  }

  /** Whether the snapshot holds this path (any file, page or not). */
  hasFile(path: string): boolean {
    return this.data.files.has(path);
  }

  get files(): ReadonlySet<string> {
    return this.data.files;
  }

  problems(): DocsProblem[] {
    return collectProblems(this.data);
  }

  /** A copy whose every mutable part is its own; page contents are shared, and frozen. */
  copy(): SiteIndexData {
    return copyIndexData(this.data);
  }
}

/** Every problem of a snapshot, in a stable order; copies, since page contents are shared between snapshots. */
export function collectProblems(data: Pick<SiteIndexData, 'sites' | 'navigation' | 'pages' | 'limits'>): DocsProblem[] {
  const all: DocsProblem[] = [];
  for (const site of data.sites) all.push(...site.problems);
  all.push(...data.navigation);
  for (const record of data.pages.values()) all.push(...record.content.own, ...record.linkProblems);
  return all
    .sort(compareProblems)
    .concat(data.limits)
    .map((problem) => ({ ...problem }));
}

/**
 * Copies what `SiteState.update` changes in place (the file sets, each page's record, the
 * lookup table) and shares what it only replaces or reads (page contents, configuration,
 * redirects, problem lists).
 */
export function copyIndexData(data: SiteIndexData): SiteIndexData {
  const sites = new Map<SiteBuild, SiteBuild>();
  for (const site of data.sites) sites.set(site, { ...site, model: { ...site.model, files: new Set(site.model.files) } });
  const pages = new Map<string, PageRecord>();
  for (const [path, record] of data.pages) pages.set(path, { ...record, site: sites.get(record.site) ?? record.site });
  const dependents = new Map<string, Set<string>>();
  for (const [key, set] of data.dependents) dependents.set(key, new Set(set));
  return {
    files: new Set(data.files),
    sites: [...sites.values()],
    pages,
    dependents,
    navigation: [...data.navigation],
    limits: [...data.limits],
    complete: data.complete,
  };
}

// Problems are not frozen: SiteState.problems() hands out copies, which callers may change.
function freezeContent(content: PageContent): void {
  if (Object.isFrozen(content)) return;
  for (const link of content.links) Object.freeze(link);
  Object.freeze(content.own);
  Object.freeze(content.links);
  Object.freeze(content);
}

const OBJECT_BYTES = 64;

function approximateBytes(data: SiteIndexData): number {
  const text = (value: string): number => OBJECT_BYTES + value.length * 2;
  const problems = (list: readonly DocsProblem[]): number => list.reduce((sum, problem) => sum + OBJECT_BYTES + text(problem.path) + text(problem.message), 0);
  let bytes = 0;
  for (const path of data.files) bytes += text(path);
  for (const site of data.sites) for (const file of site.model.files) bytes += text(file);
  for (const [path, record] of data.pages) {
    bytes += text(path) + 3 * OBJECT_BYTES + problems(record.content.own) + problems(record.linkProblems);
    for (const link of record.content.links) bytes += OBJECT_BYTES + text(link.target);
    for (const key of record.keys) bytes += text(key);
  }
  for (const [key, set] of data.dependents) bytes += text(key) + OBJECT_BYTES + set.size * 16;
  return bytes + problems(data.navigation) + problems(data.limits);
}
