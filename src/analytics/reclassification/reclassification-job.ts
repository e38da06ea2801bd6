import { createHitClassifier, type HitClassifier } from '../classification/classify-hit.js';
import type { AnalyticsStore, StoreReclassifier } from '../analytics-store.js';
import { DAY_MS } from '../analytics-codes.js';
import { DocwrightError } from '../../core/errors.js';
import { classifierVersionName } from '../hit-encoder.js';
import type { RangeCatalog } from '../verification/range-catalog.js';
import { reclassifySite } from './reclassify-site.js';

export interface ReclassificationProgress {
  state: 'idle' | 'running' | 'done' | 'failed';
  /** The agent table version hits are brought to. */
  tableVersion: string;
  /** The fingerprint of the ranges hits are re-verified against; absent when verification is off. */
  rangesVersion?: string;
  sites: number;
  sitesDone: number;
  /** Hits brought to the version so far. */
  hitsRewritten: number;
  /**
   * Of those, the hits copied to be counted again (the ordinary fold counts them shortly):
   * the hits from the first day where a hit's class or agent changed. The others were
   * relabelled in place (on ClickHouse every hit is copied into a new generation).
   */
  hitsRefolded: number;
  error?: string;
}

export interface ReclassificationOptions {
  /** Default: the shipped table's classifier. */
  classifier?: HitClassifier;
  /**
   * The ranges verification checks against now (VerificationService.catalog): stored hits
   * are re-verified against them and the version they are brought to names their
   * fingerprint, as ingest does (classifierVersionName). Absent: verification is off.
   */
  ranges?: RangeCatalog | null;
  onProgress?: (progress: ReclassificationProgress) => void;
  /** Checked between sites; the job stops there (a later run resumes with the sites left). */
  signal?: AbortSignal;
}

/**
 * Brings every stored hit to the current agent table (docs/classification.md,
 * "Reclassification"). One site per transaction (reclassifySite), so a site is either
 * wholly reclassified or not at all, and reports stay exact throughout. Resumable and
 * idempotent without state of its own: what is left is exactly the hits whose
 * classifier_version is not the table's (or that predate categories), so a run that
 * stopped, crashed or ran beside another process simply finds less to do.
 *
 * Days the retention has cut into keep their hits as they are: their earliest hits are
 * gone, so the day's rollups could not be counted again.
 */
export class ReclassificationJob {
  private current: ReclassificationProgress;
  private readonly classifier: HitClassifier;
  private readonly ranges: RangeCatalog | null;

  constructor(
    private readonly store: AnalyticsStore,
    private readonly options: ReclassificationOptions = {},
  ) {
    this.classifier = options.classifier ?? createHitClassifier();
    this.ranges = options.ranges ?? null;
    this.current = {
      state: 'idle',
      tableVersion: this.classifier.tableVersion,
      ...(this.ranges?.fingerprint === undefined ? {} : { rangesVersion: this.ranges.fingerprint }),
      sites: 0,
      sitesDone: 0,
      hitsRewritten: 0,
      hitsRefolded: 0,
    };
  }

  get progress(): ReclassificationProgress {
    return { ...this.current };
  }

  async run(): Promise<ReclassificationProgress> {
    const work = this.siteWork();
    try {
      const versionId = await this.store.ensureClassifierVersion(classifierVersionName(this.classifier.tableVersion, this.ranges?.fingerprint));
      const fromAt = Math.ceil((await this.store.prunedBefore()) / DAY_MS) * DAY_MS;
      const sites = await work.sitesLeft(versionId, fromAt);
      this.update({ state: 'running', sites: sites.length, sitesDone: 0, hitsRewritten: 0, hitsRefolded: 0 });
      for (const site of sites) {
        if (this.options.signal?.aborted === true) break;
        const done = await work.reclassifySite(site, this.classifier, versionId, fromAt, this.ranges);
        this.update({
          sitesDone: this.current.sitesDone + 1,
          hitsRewritten: this.current.hitsRewritten + done.rewritten,
          hitsRefolded: this.current.hitsRefolded + done.refolded,
        });
      }
      this.update({ state: this.current.sitesDone === this.current.sites ? 'done' : 'idle' });
    } catch (error) {
      this.update({ state: 'failed', error: error instanceof Error ? error.message : String(error) });
      throw error;
    }
    return this.progress;
  }

  /** The store's own reclassifier (ClickHouse), or one site per rebuild transaction (SQL). */
  private siteWork(): StoreReclassifier {
    if (this.store.reclassifier !== undefined) return this.store.reclassifier;
    const rebuild = this.store.rebuildTransaction?.bind(this.store);
    if (rebuild === undefined) {
      throw new DocwrightError('reclassification_unsupported', 'This analytics store cannot reclassify stored hits.', { status: 501 });
    }
    return {
      sitesLeft: async (versionId, fromAt) =>
        (
          await this.store.select<{ site: number }>(
            'select distinct site from analytics_hits where at >= ? and (classifier_version <> ? or category = 0) order by site',
            [fromAt, versionId],
          )
        ).map((row) => Number(row.site)),
      reclassifySite: (site, classifier, versionId, fromAt) =>
        rebuild((runner) => reclassifySite(runner, { site, classifier, versionId, fromAt, ranges: this.ranges })),
    };
  }

  private update(change: Partial<ReclassificationProgress>): void {
    this.current = { ...this.current, ...change };
    this.options.onProgress?.(this.progress);
  }
}
