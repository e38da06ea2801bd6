import { randomFillSync } from 'node:crypto';
import type { ClickHouseClient } from '@clickhouse/client';
import type { Clock } from '../../core/clock.js';
import { DocwrightError } from '../../core/errors.js';
import { databaseTrouble } from '../../db/database-unavailable.js';
import { DEFAULT_SPOOL_MAX_HITS } from '../../config/clickhouse-settings.js';
import type { HitBatch, InsertHitsResult } from '../analytics-store.js';
import { dayOf } from '../analytics-codes.js';
import { HitRowEncoder, insertHitRows, wordsOf } from './clickhouse-hit-rows.js';
import { listLiteral, raw, sql } from './clickhouse-literal.js';
import { stampHitDays } from './clickhouse-cell-builds.js';
import type { ClickHouseGenerations } from './clickhouse-generations.js';
import { readTable, type ClickHouseTarget } from './clickhouse-migrations.js';
import type { ClickHouseSpool, SpoolRecord } from './clickhouse-spool.js';
import { decodeSpooledHits, encodeSpooledHits, keptBatch, type SpooledHits } from './spooled-hits.js';

/** Batches accepted together at most: one event-id check and one spool transaction for up to this many requests' hits. */
const MAX_GROUP_BATCHES = 64;

/** How far ahead a day stamp reaches (stamp), and how many (site, day) stamps a process remembers. */
const STAMP_AHEAD_MS = 1_000;
const MAX_STAMPED_DAYS = 10_000;

/**
 * Whether a group's failure may be one batch's doing: not ClickHouse being unreachable or
 * busy, nor the spool being full (a DocwrightError), which every batch of the group would
 * meet again alone.
 */
function isBatchFault(error: unknown): boolean {
  return databaseTrouble(error) === undefined && !(error instanceof DocwrightError);
}

/** One spooled batch (every row of it to write), with what its rows need. */
interface KeptHits {
  batch: HitBatch;
  /** The UTC day of each row, which decides its generations. */
  days: Int32Array;
  /** The batch's visitors and nonces, as 32-bit words (HitRowEncoder). */
  visitorWords: Uint32Array;
  nonceWords: Uint32Array;
}

interface Pending {
  batch: HitBatch;
  resolve(result: InsertHitsResult): void;
  reject(error: unknown): void;
}

/**
 * Accepts raw hits of a site into the durable spool, skipping event ids already stored or
 * spooled, and writes spooled batches into ClickHouse when the drainer asks. Within a
 * process the accepts of one site are serialised (so every answer's `duplicates` is exact
 * and the first event of an id is the one kept) and grouped: batches that arrive while a
 * check is in flight go into the next one together.
 *
 * Across processes the check and the write are not atomic: two processes storing the
 * same new id at once may both store it. Hit counts stay exact (hits are counted as
 * unique (event id, nonce)), and so do visitors when the retry is the same event; only
 * the second answer's `duplicates` misses it (docs/analytics.md, "ClickHouse").
 */
export class ClickHouseHitWriter {
  private readonly queues = new Map<number, Pending[]>();
  /** Per "site:day", until when this process's last stamp of it covers its drains (stamp). */
  private readonly stampedUntil = new Map<string, number>();

  constructor(
    private readonly client: ClickHouseClient,
    private readonly target: ClickHouseTarget,
    private readonly generations: ClickHouseGenerations,
    private readonly spool: ClickHouseSpool,
    /** Hears how many hits were spooled (the drainer starts early when enough wait). */
    private readonly onSpooled: (hits: number) => void,
    private readonly clock: Clock,
    /** Hits the spool may hold, claimed or not, before ingest answers 503 (ClickHouse unreachable or behind). */
    private readonly maxSpooledHits = DEFAULT_SPOOL_MAX_HITS,
  ) {}

  /** Resolves once the batch's new hits are committed to the spool. */
  accept(batch: HitBatch): Promise<InsertHitsResult> {
    return new Promise((resolve, reject) => {
      const queue = this.queues.get(batch.site);
      if (queue !== undefined) {
        queue.push({ batch, resolve, reject });
        return;
      }
      this.queues.set(batch.site, [{ batch, resolve, reject }]);
      void this.acceptQueue(batch.site);
    });
  }

  /** Accepts the site's queue group by group until it is empty; the queue's presence marks the run. */
  private async acceptQueue(site: number): Promise<void> {
    const queue = this.queues.get(site)!;
    while (queue.length > 0) {
      const group = queue.splice(0, MAX_GROUP_BATCHES);
      try {
        const results = await this.acceptGroup(group.map((pending) => pending.batch));
        group.forEach((pending, index) => pending.resolve(results[index]!));
      } catch (error) {
        if (group.length === 1 || !isBatchFault(error)) for (const pending of group) pending.reject(error);
        else await this.acceptAlone(group);
      }
    }
    this.queues.delete(site);
  }

  /**
   * Accepts each batch of a failed group on its own, in order, so a value one request sent
   * fails that request alone, never the others it happened to be grouped with. The group
   * wrote nothing (its one spool transaction did not commit), so nothing is stored twice.
   */
  private async acceptAlone(group: readonly Pending[]): Promise<void> {
    for (const pending of group) {
      try {
        const [result] = await this.acceptGroup([pending.batch]);
        pending.resolve(result!);
      } catch (error) {
        pending.reject(error);
      }
    }
  }

  /**
   * Event ids of `batches` already stored: waiting in the spool (read before the query, so
   * an id whose drain ends during the query is still found), or in analytics_event_ids.
   */
  private async storedIds(site: number, batches: readonly HitBatch[]): Promise<Set<string>> {
    const ids = new Set<string>();
    for (const batch of batches) for (const id of batch.eventId) if (id !== null) ids.add(id);
    if (ids.size === 0) return ids;
    const seen = new Set<string>(this.spool.spooledEventIds(site, [...ids]));
    const rows = await (
      await this.client.query({
        query: sql`SELECT DISTINCT event_id FROM ${raw(readTable(this.target, 'analytics_event_ids'))} WHERE site = ${site} AND event_id IN ${listLiteral([...ids])}`,
        format: 'JSONEachRow',
      })
    ).json<{ event_id: string }>();
    for (const row of rows) seen.add(row.event_id);
    return seen;
  }

  private async acceptGroup(batches: readonly HitBatch[]): Promise<InsertHitsResult[]> {
    const site = batches[0]!.site;
    const seen = await this.storedIds(site, batches);
    const records: Array<{ hits: number; payload: Buffer; ids: string[] }> = [];
    const results = batches.map((batch) => {
      const rows = new Int32Array(batch.count);
      const ids: string[] = [];
      let count = 0;
      for (let index = 0; index < batch.count; index++) {
        const eventId = batch.eventId[index] ?? null;
        if (eventId !== null) {
          if (seen.has(eventId)) continue;
          seen.add(eventId);
          ids.push(eventId);
        }
        rows[count++] = index;
      }
      if (count > 0) {
        const nonces = new BigUint64Array(count);
        randomFillSync(nonces);
        records.push({ hits: count, payload: encodeSpooledHits({ batch: keptBatch(batch, rows.subarray(0, count)), nonces }), ids });
      }
      return { stored: count, duplicates: batch.count - count };
    });
    const hits = records.reduce((sum, record) => sum + record.hits, 0);
    if (hits === 0) return results;
    if (this.spool.pendingHits() + hits > this.maxSpooledHits) {
      throw new DocwrightError(
        'analytics_backlog',
        `${this.maxSpooledHits.toLocaleString('en')} hits are waiting to be written into ClickHouse (unreachable or behind); send this batch again later.`,
        { status: 503, headers: { 'Retry-After': '10' } },
      );
    }
    const now = this.clock.now();
    this.spool.transaction(() => {
      for (const record of records) this.spool.append(site, record.hits, record.payload, now, record.ids);
    });
    this.onSpooled(hits);
    return results;
  }

  /**
   * Writes spooled records into ClickHouse, one insert (per generation pass) per site. A
   * record that cannot be read is set aside in the spool file (rejected_spooled_hits) and
   * reported, not retried for ever.
   */
  async writeSpooled(records: readonly SpoolRecord[], onRejected: (record: SpoolRecord, error: unknown) => void): Promise<void> {
    const bySite = new Map<number, KeptHits[]>();
    for (const record of records) {
      let hits: SpooledHits;
      try {
        hits = decodeSpooledHits(record.payload);
      } catch (error) {
        this.spool.reject(record.id, error instanceof Error ? error.message : String(error), this.clock.now());
        onRejected(record, error);
        continue;
      }
      const { batch, nonces } = hits;
      const days = new Int32Array(batch.count);
      for (let index = 0; index < batch.count; index++) days[index] = dayOf(batch.at[index]!);
      const kept: KeptHits = { batch, days, visitorWords: wordsOf(batch.visitor), nonceWords: wordsOf(nonces) };
      const site = bySite.get(batch.site);
      if (site === undefined) bySite.set(batch.site, [kept]);
      else site.push(kept);
    }
    for (const [site, kept] of bySite) await this.writeGenerations(site, kept);
  }

  /**
   * Stamps the days before their hits are written (stampHitDays): with a time STAMP_AHEAD_MS
   * ahead, so drains that follow within it need no stamp of their own. A stamp must be no
   * earlier than the drain's taking its records from the spool; one ahead of it is only
   * conservative (a build made before that time takes the day for newer than its cells).
   * Under load a drain runs several times a second; this keeps it to one stamp insert per
   * day and second instead of one per drain.
   */
  private async stamp(site: number, days: Iterable<number>): Promise<void> {
    const now = this.clock.now();
    const due = [...days].filter((day) => (this.stampedUntil.get(`${site}:${day}`) ?? Number.NEGATIVE_INFINITY) <= now);
    if (due.length === 0) return;
    if (this.stampedUntil.size > MAX_STAMPED_DAYS) this.stampedUntil.clear();
    await stampHitDays(this.client, this.target, site, due, now + STAMP_AHEAD_MS);
    for (const day of due) this.stampedUntil.set(`${site}:${day}`, now + STAMP_AHEAD_MS);
  }

  /**
   * Writes each hit into every generation that must have it: the one answering for its
   * day and each one a reclassification is writing (clickhouse-generations.ts). The
   * generations are read again after every insert, and hits are written into those that
   * appeared meanwhile, until nothing changed: a reclassification claims its generation
   * before it reads the hits to copy, so a hit is either copied by it or written into it
   * here, and the write returns only then (a hit is counted once its write returns). A
   * hit's generations depend on its day alone, so what was written is kept per day.
   */
  private async writeGenerations(site: number, kept: readonly KeptHits[]): Promise<void> {
    const written = new Map<number, Set<number>>();
    let rows = 0;
    for (const hits of kept) {
      rows += hits.batch.count;
      for (const day of hits.days) if (!written.has(day)) written.set(day, new Set());
    }
    // Read before the insert too (not remembered from the last one), so a switch since then
    // leaves no row in a superseded generation. The days are stamped before the insert too.
    // The write time of every row: no earlier than this drain's taking its records from the
    // spool, and no later than its stamps (stamp() takes the clock after this).
    const writtenAt = this.clock.now();
    let [map] = await Promise.all([this.generations.of(site), this.stamp(site, written.keys())]);
    for (;;) {
      const fresh = new Map<number, number[]>();
      for (const [day, gens] of written) {
        const targets = map.targets(day).filter((gen) => !gens.has(gen));
        for (const gen of targets) gens.add(gen);
        if (targets.length > 0) fresh.set(day, targets);
      }
      if (fresh.size === 0) break;
      const encoder = new HitRowEncoder(rows, writtenAt);
      for (const hits of kept) {
        for (let index = 0; index < hits.batch.count; index++) {
          for (const gen of fresh.get(hits.days[index]!) ?? []) encoder.row(gen, hits.batch, index, hits.visitorWords, hits.nonceWords);
        }
      }
      await insertHitRows(this.client, readTable(this.target, 'analytics_hits'), encoder.bytes());
      map = await this.generations.of(site);
    }
  }
}
