import type { ClickHouseSettings } from '../config/clickhouse-settings.js';
import type { Clock } from '../core/clock.js';
import { DocwrightError, notFound, validationFailed } from '../core/errors.js';
import type { Database } from '../db/database.js';
import type { ProjectSettings } from '../projects/project.js';
import type { AnalyticsStore, PruneCounts } from './analytics-store.js';
import type { DeletedProjectData } from './project-data-deletion.js';
import { DAY_MS, dayOf } from './analytics-codes.js';
import {
  type DailyResult,
  type IngestOptions,
  type IngestResult,
  type SortOrder,
  type TimeRange,
  type TrafficResult,
  type ViewsResult,
  type VisitorsQuery,
  type VisitorsResult,
} from './analytics-types.js';
import { dailyReport } from './daily-report.js';
import { DimensionNames } from './dimension-names.js';
import { FoldScheduler, type FoldSchedulerOptions } from './fold-scheduler.js';
import { HitEncoder } from './hit-encoder.js';
import { IngestPool, type IngestVerifier } from './ingest-pool.js';
import { siteAuthorities } from './verification/signed-authority.js';
import { NonceLedger } from './verification/nonce-ledger.js';
import { batchNonces } from './relabel-replays.js';
import { ReclassificationJob, type ReclassificationProgress } from './reclassification/reclassification-job.js';
import { claimOnlyVerifier, type HitVerifier } from './verification/hit-verifier.js';
import { MAX_BATCH_EVENTS, prepareBatch, type BatchContext, type PreparedBatch } from './prepare-batch.js';
import { sqlAnalyticsStore } from './sql-analytics-store.js';
import { ClickHouseAnalyticsStore } from './clickhouse/clickhouse-analytics-store.js';
import { checkedRange, checkEdgesRetained } from './query-range.js';
import { planRange } from './range-plan.js';
import { trafficReport } from './traffic-report.js';
import { VisitorIdentity } from './visitor-identity.js';
import { checkedListPage, checkedPageQuery, checkedSortedPage, DEFAULT_VISITORS_LIMIT, MAX_VISITORS_LIMIT } from './page-query.js';
import type { AnalyticsReader } from './analytics-store.js';
import { agentErrorsReport } from './reports/agent-errors-report.js';
import { agentsReport } from './reports/agents-report.js';
import { pagesReport } from './reports/pages-report.js';
import { PAGES_SORTS, type AgentErrorsResult, type AgentsResult, type ListPage, type PagesResult, type PagesSort } from './reports/report-types.js';
import { reportWindow, type ReportWindow } from './reports/report-window.js';
import { viewsReport } from './views-report.js';
import { visitorsReport } from './visitors-report.js';
import type { VerificationService } from './verification/verification-service.js';

export { MAX_BATCH_EVENTS };
export const MAX_FUTURE_SKEW_MS = 5 * 60_000;
export { DEFAULT_VISITORS_LIMIT, MAX_VISITORS_LIMIT };
/** Longest range of the daily endpoint, in days; its default range is the last DEFAULT_DAILY_DAYS days. */
export const MAX_DAILY_DAYS = 366;
export const DEFAULT_DAILY_DAYS = 30;

export interface AnalyticsServiceOptions {
  database: Database;
  clock: Clock;
  /** Keys visitor hashing (per project, via HKDF). */
  secret: string;
  retentionDays: number;
  /** Project settings (rotateVisitorIdsDaily) by id; null for an unknown project. */
  projectSettings: (projectId: string) => Promise<ProjectSettings | null>;
  fold?: FoldSchedulerOptions;
  /** Analytics in ClickHouse instead of `database` (which keeps sites and dictionaries). */
  clickhouse?: ClickHouseSettings | undefined;
  /** Worker threads preparing request bodies (see IngestPool); 0 = none. */
  ingestWorkers?: number;
  /** How ingested hits are verified (IngestVerifier); default claimOnlyVerifier. */
  verifier?: IngestVerifier;
  /** Agent verification's evidence (ranges, key directories, reverse DNS); null or absent = claim only. */
  verification?: VerificationService | null;
  onBackgroundError?: (error: unknown) => void;
}

/**
 * Visitor analytics: ingestion, the rollups behind exact unique-visitor counts, and the
 * reports. Used by the HTTP routes, the CLI and the benchmarks; the method signatures
 * are kept stable for them.
 */
export class AnalyticsService {
  readonly store: AnalyticsStore;
  readonly verification: VerificationService | null;
  private readonly nonces: NonceLedger;
  private readonly clock: Clock;
  private readonly retentionDays: number;
  private readonly projectSettings: AnalyticsServiceOptions['projectSettings'];
  private readonly encoder: HitEncoder;
  private readonly identity: VisitorIdentity;
  private readonly verifier: HitVerifier;
  private readonly pool: IngestPool;
  private readonly names: DimensionNames;
  private readonly scheduler: FoldScheduler;
  private readonly sites = new Map<string, number>();
  private prunedBeforeCache: { value: number; readAt: number } | undefined;
  private pruning: Promise<unknown> = Promise.resolve();
  private reclassifying: Promise<unknown> = Promise.resolve();
  private readonly closing = new AbortController();

  constructor(options: AnalyticsServiceOptions) {
    const sqlStore = sqlAnalyticsStore(options.database);
    this.store = options.clickhouse
      ? new ClickHouseAnalyticsStore(sqlStore, options.clickhouse, options.clock, {
          ...(options.onBackgroundError === undefined ? {} : { onBackgroundError: options.onBackgroundError }),
        })
      : sqlStore;
    this.clock = options.clock;
    this.verification = options.verification ?? null;
    this.nonces = new NonceLedger(options.database, options.clock, options.onBackgroundError);
    this.retentionDays = options.retentionDays;
    this.projectSettings = options.projectSettings;
    this.identity = new VisitorIdentity(options.secret);
    this.encoder = new HitEncoder(this.store);
    this.verifier = options.verifier?.verifier ?? claimOnlyVerifier;
    const poolOptions = {
      secret: options.secret,
      ...(options.onBackgroundError ? { onWorkerError: options.onBackgroundError } : {}),
      ...(options.verifier ? { verifier: options.verifier } : {}),
    };
    this.pool = new IngestPool(options.ingestWorkers === undefined ? poolOptions : { ...poolOptions, workers: options.ingestWorkers });
    this.names = new DimensionNames(this.store);
    this.scheduler = new FoldScheduler(this.store, options.fold, options.onBackgroundError);
  }

  /**
   * Validates each event on its own, stores the valid ones and reports the rest by index.
   * At most MAX_BATCH_EVENTS per call.
   */
  async ingest(projectId: string, events: readonly unknown[], options: IngestOptions = {}): Promise<IngestResult> {
    const ended = this.scheduler.ingestStarted();
    try {
      const context = await this.batchContext(projectId, options);
      return await this.storeBatch(projectId, prepareBatch(events, context, this.identity, this.verifier));
    } finally {
      ended();
    }
  }

  /**
   * The events endpoint's body (`{ "events": [...] }`, UTF-8 JSON) as received: parsed and
   * prepared on a worker thread. Same answer as `ingest`.
   */
  async ingestBody(projectId: string, body: Uint8Array, options: IngestOptions = {}): Promise<IngestResult> {
    const ended = this.scheduler.ingestStarted();
    try {
      const context = await this.batchContext(projectId, options);
      return await this.storeBatch(projectId, await this.pool.prepare(body, context));
    } finally {
      ended();
    }
  }

  private async batchContext(projectId: string, options: IngestOptions): Promise<BatchContext> {
    const settings = await this.settingsOf(projectId);
    const receivedAt = options.receivedAt ?? this.clock.now();
    return {
      projectId,
      rotateDaily: settings.rotateVisitorIdsDaily === true,
      authorities: options.authorities ?? siteAuthorities(settings),
      window: { receivedAt, latest: receivedAt + MAX_FUTURE_SKEW_MS, earliest: await this.oldestAcceptable(receivedAt) },
    };
  }

  private async storeBatch(projectId: string, batch: PreparedBatch): Promise<IngestResult> {
    if (!batch.ok)
      throw new DocwrightError(
        batch.code,
        batch.message,
        batch.errors === undefined ? { status: batch.status } : { status: batch.status, errors: batch.errors },
      );
    const { columns, rejected } = batch;
    if (columns.count === 0) return { accepted: 0, duplicates: 0, rejected };
    const site = await this.siteFor(projectId, true);
    const hits = await this.encoder.encode(site, columns);
    // A nonce another event already claimed, in any server process, is a replay: the store
    // claims the batch's signed nonces in the transaction that stores its hits (nonce-ledger.ts).
    if (columns.nonces.length > 0) {
      hits.nonces = await batchNonces(columns, Math.floor(this.clock.now() / 1000), (agents) => this.encoder.agentIds(site, agents));
    }
    const { duplicates } = await this.store.insertHits(hits);
    if (hits.nonces !== undefined) this.nonces.maybePrune();
    this.scheduler.noteIngest();
    return { accepted: columns.count, duplicates, rejected };
  }

  /** Site-wide totals and one page of per-page unique visitors (human, ai, total). */
  async visitors(projectId: string, query: VisitorsQuery = {}): Promise<VisitorsResult> {
    const page = checkedPageQuery(query);
    const { site, plan } = await this.prepareQuery(projectId, query);
    return this.read((reader) => visitorsReport(reader, this.names, site, plan, page));
  }

  /** Site-wide totals and one page of per-page views (human and ai hits), ordered like visitors. */
  async views(projectId: string, query: VisitorsQuery = {}): Promise<ViewsResult> {
    const page = checkedPageQuery(query);
    const { site, plan } = await this.prepareQuery(projectId, query);
    return this.read((reader) => viewsReport(reader, this.names, site, plan, page));
  }

  /** Per named agent: visitors, hits, verified share, pages, Markdown and llms.txt reads (raw hits of the range). */
  async agents(projectId: string, query: TimeRange & ListPage = {}): Promise<AgentsResult> {
    const page = checkedListPage(query);
    return this.rawReport(projectId, query, (reader, site, window) => agentsReport(reader, this.names, site, window, page));
  }

  /** Per page: human readers, AI readers by category, AI referrals and agent skew (raw hits of the range). */
  async pages(projectId: string, query: TimeRange & ListPage & { sort?: PagesSort; order?: SortOrder } = {}): Promise<PagesResult> {
    const page = checkedSortedPage(query, PAGES_SORTS, 'aiReaders');
    return this.rawReport(projectId, query, (reader, site, window) => pagesReport(reader, this.names, site, window, page));
  }

  /** Pages agents requested that answered 4xx, per page and status (raw hits of the range). */
  async agentErrors(projectId: string, query: TimeRange & ListPage = {}): Promise<AgentErrorsResult> {
    const page = checkedListPage(query);
    return this.rawReport(projectId, query, (reader, site, window) => agentErrorsReport(reader, this.names, site, window, page));
  }

  /** Site-wide unique visitors per UTC day. Defaults to the last 30 days including today; at most 366 days. */
  async daily(projectId: string, query: TimeRange = {}): Promise<DailyResult> {
    const checked = checkedRange(query.from, query.to);
    const to = checked.to ?? (dayOf(this.clock.now()) + 1) * DAY_MS;
    const from = checked.from ?? (Math.ceil(to / DAY_MS) - DEFAULT_DAILY_DAYS) * DAY_MS;
    if (from > to) throw validationFailed('dateFrom must not be after dateTo.', [{ path: 'dateFrom', message: 'must not be after dateTo' }]);
    if (Math.ceil(to / DAY_MS) - Math.floor(from / DAY_MS) > MAX_DAILY_DAYS) {
      throw validationFailed(`The daily range spans at most ${MAX_DAILY_DAYS} days.`, [
        { path: 'dateFrom', message: `must be at most ${MAX_DAILY_DAYS} days before dateTo` },
      ]);
    }
    const { site, plan } = await this.prepareQuery(projectId, { from, to });
    return this.read((reader) => dailyReport(reader, site, plan, { from, to }));
  }

  /** Hits and unique visitors per class (all five) and per named agent. */
  async traffic(projectId: string, query: TimeRange = {}): Promise<TrafficResult> {
    const { site, plan } = await this.prepareQuery(projectId, query);
    return this.read((reader) => trafficReport(reader, this.names, site, plan));
  }

  /**
   * Brings the rollups up to date with every hit stored so far; returns how many hits it
   * folded. Reports never need it (they count unfolded hits from the raw table); it makes
   * the following reports cheaper, e.g. after a bulk load.
   */
  fold(): Promise<number> {
    return this.scheduler.foldNow();
  }

  /** Hits stored and not folded yet (reports count them from the raw table). */
  pendingHits(): Promise<number> {
    return this.store.pendingHits();
  }

  /** Applies retention (config.analytics.retentionDays) as of `now`. */
  async prune(now: number = this.clock.now()): Promise<PruneCounts> {
    const run = this.pruning.then(async () => {
      await this.scheduler.foldNow('prune');
      const counts = await this.store.prune(now - this.retentionDays * DAY_MS);
      this.prunedBeforeCache = undefined;
      return counts;
    });
    this.pruning = run.catch(() => {});
    return run;
  }

  /**
   * Deletes every analytics row of the project, in short transactions, and forgets what
   * this process cached about it. Call it before deleting the project itself: the
   * project's foreign key takes the site row, the only link to the rows, with it. Revoke
   * the project's keys first, or hits arriving meanwhile may be stored under the old site.
   */
  async deleteProjectData(projectId: string): Promise<DeletedProjectData> {
    const site = this.sites.get(projectId);
    this.sites.delete(projectId);
    if (site !== undefined) {
      this.names.forget(site);
      this.encoder.forget(site);
    }
    return this.store.deleteProjectData(projectId);
  }

  /**
   * Brings stored hits to the current agent table (ReclassificationJob): null when the
   * store cannot. Stops between sites when the service closes; the next
   * start resumes.
   */
  async reclassify(onProgress?: (progress: ReclassificationProgress) => void): Promise<ReclassificationProgress | null> {
    if (this.store.rebuildTransaction === undefined && this.store.reclassifier === undefined) return null;
    // Re-verified against the ranges verification checks now (docs/classification.md, "Re-verification when the ranges change").
    const ranges = this.verification?.catalog ?? null;
    const job = new ReclassificationJob(this.store, { signal: this.closing.signal, ranges, ...(onProgress ? { onProgress } : {}) });
    const run = job.run();
    this.reclassifying = run.catch(() => {});
    return run;
  }

  async close(): Promise<void> {
    this.closing.abort();
    await this.reclassifying;
    this.verification?.stop();
    await this.pruning;
    await this.nonces.settled();
    await this.pool.close();
    await this.scheduler.close();
    await this.store.close();
  }

  /**
   * A report over the raw hits (the columns of migration 013 have no rollup): the range
   * must lie inside the raw-hit retention (reportWindow), read in one snapshot.
   */
  private async rawReport<T>(projectId: string, range: TimeRange, work: (reader: AnalyticsReader, site: number | null, window: ReportWindow) => Promise<T>) {
    await this.settingsOf(projectId);
    const now = this.clock.now();
    const window = reportWindow(range, await this.oldestAcceptable(now), now + MAX_FUTURE_SKEW_MS + 1, this.retentionDays);
    const site = await this.siteFor(projectId, false);
    return this.read((reader) => work(reader, site, window));
  }

  private async prepareQuery(projectId: string, range: TimeRange) {
    const checked = checkedRange(range.from, range.to);
    await this.settingsOf(projectId);
    const plan = planRange(checked.from, checked.to);
    const oldest = await this.oldestAcceptable(this.clock.now());
    if (plan.edges.length > 0) checkEdgesRetained(plan, checked, oldest, this.retentionDays);
    plan.rawFromDay = Math.ceil(oldest / DAY_MS) + 1;
    return { site: await this.siteFor(projectId, false), plan };
  }

  /** One report's snapshot; the background fold takes no step while it runs (FoldScheduler.readStarted). */
  private async read<T>(work: (reader: AnalyticsReader) => Promise<T>): Promise<T> {
    const ended = this.scheduler.readStarted();
    try {
      return await this.store.read(work);
    } finally {
      ended();
    }
  }

  private async settingsOf(projectId: string): Promise<ProjectSettings> {
    const settings = await this.projectSettings(projectId);
    if (settings === null) throw notFound(`No project with id "${projectId}".`);
    return settings;
  }

  private async siteFor(projectId: string, create: true): Promise<number>;
  private async siteFor(projectId: string, create: false): Promise<number | null>;
  private async siteFor(projectId: string, create: boolean): Promise<number | null> {
    const cached = this.sites.get(projectId);
    if (cached !== undefined) return cached;
    const site = create ? await this.store.ensureSite(projectId) : await this.store.siteOf(projectId);
    if (site !== null) this.sites.set(projectId, site);
    return site;
  }

  /**
   * The retention horizon, or the prune watermark if that is later (after retention was
   * raised, older data would have to fit around visit days already pruned). The watermark
   * is re-read at most once a minute; only a prune moves it.
   */
  private async oldestAcceptable(now: number): Promise<number> {
    if (this.prunedBeforeCache === undefined || now - this.prunedBeforeCache.readAt > 60_000 || now < this.prunedBeforeCache.readAt) {
      this.prunedBeforeCache = { value: await this.store.prunedBefore(), readAt: now };
    }
    return Math.max(now - this.retentionDays * DAY_MS, this.prunedBeforeCache.value);
  }
}
