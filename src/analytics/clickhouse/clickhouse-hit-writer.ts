import { randomFillSync } from 'node:crypto';
import { Readable } from 'node:stream';
import type { ClickHouseClient } from '@clickhouse/client';
import type { HitBatch, InsertHitsResult } from '../analytics-store.js';
import { dayOf } from '../analytics-codes.js';
import { listLiteral, raw, sql, tsvField } from './clickhouse-literal.js';
import { readTable, type ClickHouseTarget } from './clickhouse-migrations.js';

/** Columns of the insert, in the order of each line. */
const HIT_COLUMNS = [
  'site',
  'at',
  'day',
  'page',
  'visitor',
  'class',
  'agent',
  'user_agent',
  'referrer',
  'markdown_accept',
  'classifier_version',
  'event_id',
  'nonce',
  'category',
  'verification',
  'read_kind',
  'status',
  'referral',
] as const;

/** 0 is "none" in the batch arrays and null (`\N`) in the table. */
const orNull = (value: number): string => (value === 0 ? '\\N' : String(value));

/** Batches written together at most: one event-id check per site and one insert of up to this many requests' hits. */
const MAX_GROUP_BATCHES = 64;

/** Rows a group waits for while it lingers; a group this large goes at once. */
const LINGER_ROWS = 16_000;

interface Pending {
  batch: HitBatch;
  resolve(result: InsertHitsResult): void;
  reject(error: unknown): void;
}

export interface HitWriterOptions {
  /**
   * How long a group that queued behind a running insert waits for more requests before
   * it is written (0: never). ClickHouse's cost per insert is mostly fixed (a part per
   * table and materialized view, merged later), so under load a few milliseconds buy
   * larger, cheaper inserts; the first group after a quiet spell never waits.
   */
  lingerMs: number;
}

/**
 * Writes raw hits, skipping event ids already stored. Within a process all writes go
 * through one queue (so every answer's `duplicates` is exact and the first event of an
 * id is the one kept) and are grouped across requests and sites: batches that arrive
 * while an insert is in flight go into the next one together, as one event-id check per
 * site and one INSERT. ClickHouse prefers few large inserts (each one is a part per
 * table to merge) to many small ones.
 *
 * Across processes the check and the insert are not atomic: two processes storing the
 * same new id at once may both store it. Hit counts stay exact (hits are counted as
 * unique (event id, nonce)), and so do visitors when the retry is the same event; only
 * the second answer's `duplicates` misses it (docs/analytics.md, "ClickHouse").
 */
export class ClickHouseHitWriter {
  private readonly queue: Pending[] = [];
  private queuedRows = 0;
  private draining = false;
  /** Ends a linger early once enough rows are queued. */
  private wake: (() => void) | undefined;

  constructor(
    private readonly client: ClickHouseClient,
    private readonly target: ClickHouseTarget,
    private readonly options: HitWriterOptions,
  ) {}

  write(batch: HitBatch): Promise<InsertHitsResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ batch, resolve, reject });
      this.queuedRows += batch.count;
      if (this.queuedRows >= LINGER_ROWS) this.wake?.();
      if (!this.draining) void this.drain();
    });
  }

  /** Waits up to lingerMs, or until LINGER_ROWS rows are queued. */
  private linger(): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, this.options.lingerMs);
      const wake = () => done();
      this.wake = wake;
      function done() {
        clearTimeout(timer);
        resolve();
      }
    }).finally(() => (this.wake = undefined));
  }

  /** Writes the queue group by group until it is empty; `draining` marks the drain as running. */
  private async drain(): Promise<void> {
    this.draining = true;
    let behindInsert = false;
    while (this.queue.length > 0) {
      // Requests that queued while an insert ran mean load: wait briefly for their peers.
      if (behindInsert && this.options.lingerMs > 0 && this.queuedRows < LINGER_ROWS) await this.linger();
      const group = this.queue.splice(0, MAX_GROUP_BATCHES);
      for (const pending of group) this.queuedRows -= pending.batch.count;
      try {
        const results = await this.insertGroup(group.map((pending) => pending.batch));
        group.forEach((pending, index) => pending.resolve(results[index]!));
      } catch (error) {
        for (const pending of group) pending.reject(error);
      }
      behindInsert = true;
    }
    this.draining = false;
  }

  private async storedIds(site: number, batches: readonly HitBatch[]): Promise<Set<string>> {
    const ids = new Set<string>();
    for (const batch of batches) for (const id of batch.eventId) if (id !== null) ids.add(id);
    if (ids.size === 0) return ids;
    const rows = await (
      await this.client.query({
        query: sql`SELECT DISTINCT event_id FROM ${raw(readTable(this.target, 'analytics_event_ids'))} WHERE site = ${site} AND event_id IN ${listLiteral([...ids])}`,
        format: 'JSONEachRow',
      })
    ).json<{ event_id: string }>();
    return new Set(rows.map((row) => row.event_id));
  }

  /** The event ids already stored, per site of the group. */
  private async storedIdsBySite(batches: readonly HitBatch[]): Promise<Map<number, Set<string>>> {
    const bySite = new Map<number, HitBatch[]>();
    for (const batch of batches) {
      const list = bySite.get(batch.site);
      if (list === undefined) bySite.set(batch.site, [batch]);
      else list.push(batch);
    }
    const seen = new Map<number, Set<string>>();
    for (const [site, list] of bySite) seen.set(site, await this.storedIds(site, list));
    return seen;
  }

  private async insertGroup(batches: readonly HitBatch[]): Promise<InsertHitsResult[]> {
    const seenBySite = await this.storedIdsBySite(batches);
    // Rows as TabSeparated text: far less work than an object and JSON per row.
    const lines: string[] = [];
    const results = batches.map((batch) => {
      const seen = seenBySite.get(batch.site)!;
      const nonces = new BigUint64Array(batch.count);
      randomFillSync(nonces);
      let duplicates = 0;
      const fixed = `${batch.site}\t`;
      const version = `\t${batch.classifierVersion}\t`;
      for (let index = 0; index < batch.count; index++) {
        const eventId = batch.eventId[index] ?? null;
        if (eventId !== null) {
          if (seen.has(eventId)) {
            duplicates++;
            continue;
          }
          seen.add(eventId);
        }
        const at = batch.at[index]!;
        if (!Number.isSafeInteger(at)) throw new TypeError(`hit time is not an integer: ${at}`);
        lines.push(
          fixed +
            `${at}\t${dayOf(at)}\t${batch.page[index]}\t${batch.visitor[index]}\t${batch.classCode[index]}\t${batch.agent[index]}\t${batch.userAgent[index]}\t` +
            `${tsvField(batch.referrer[index] ?? null)}\t${batch.markdownAccept[index]}${version}${tsvField(eventId ?? '')}\t${eventId === null ? nonces[index] : 0}\t` +
            `${batch.category[index]}\t${batch.verification[index]}\t${batch.readKind[index]}\t${orNull(batch.status[index]!)}\t${orNull(batch.referral[index]!)}\n`,
        );
      }
      return { stored: batch.count - duplicates, duplicates };
    });
    if (lines.length > 0) {
      await this.client.insert({
        table: readTable(this.target, 'analytics_hits'),
        columns: [...HIT_COLUMNS],
        values: Readable.from([Buffer.from(lines.join(''))], { objectMode: false }),
        format: 'TabSeparated',
      });
    }
    return results;
  }
}
