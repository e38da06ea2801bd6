import { randomFillSync } from 'node:crypto';
import type { ClickHouseClient } from '@clickhouse/client';
import type { HitBatch, InsertHitsResult } from '../analytics-store.js';
import { dayOf } from '../analytics-codes.js';
import { listLiteral, raw, sql } from './clickhouse-literal.js';
import { readTable, type ClickHouseTarget } from './clickhouse-migrations.js';

/** Batches written together at most: one check and one insert of up to this many requests' hits. */
const MAX_GROUP_BATCHES = 64;

interface Pending {
  batch: HitBatch;
  resolve(result: InsertHitsResult): void;
  reject(error: unknown): void;
}

/**
 * Writes raw hits of a site, skipping event ids already stored. Within a process the
 * writes of one site are serialised (so every answer's `duplicates` is exact and the first
 * event of an id is the one kept) and grouped: batches that arrive while an insert is in
 * flight go into the next one together, as one event-id check and one INSERT. ClickHouse
 * prefers few large inserts (each one is a part per table to merge) to many small ones.
 *
 * Across processes the check and the insert are not atomic: two processes storing the
 * same new id at once may both store it. Hit counts stay exact (hits are counted as
 * unique (event id, nonce)), and so do visitors when the retry is the same event; only
 * the second answer's `duplicates` misses it (docs/analytics.md, "ClickHouse").
 */
export class ClickHouseHitWriter {
  private readonly queues = new Map<number, Pending[]>();

  constructor(
    private readonly client: ClickHouseClient,
    private readonly target: ClickHouseTarget,
  ) {}

  write(batch: HitBatch): Promise<InsertHitsResult> {
    return new Promise((resolve, reject) => {
      const queue = this.queues.get(batch.site);
      if (queue !== undefined) {
        queue.push({ batch, resolve, reject });
        return;
      }
      this.queues.set(batch.site, [{ batch, resolve, reject }]);
      void this.drain(batch.site);
    });
  }

  /** Writes the site's queue group by group until it is empty; the queue's presence marks the drain as running. */
  private async drain(site: number): Promise<void> {
    const queue = this.queues.get(site)!;
    while (queue.length > 0) {
      const group = queue.splice(0, MAX_GROUP_BATCHES);
      try {
        const results = await this.insertGroup(group.map((pending) => pending.batch));
        group.forEach((pending, index) => pending.resolve(results[index]!));
      } catch (error) {
        for (const pending of group) pending.reject(error);
      }
    }
    this.queues.delete(site);
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

  private async insertGroup(batches: readonly HitBatch[]): Promise<InsertHitsResult[]> {
    const seen = await this.storedIds(batches[0]!.site, batches);
    const rows: object[] = [];
    const results = batches.map((batch) => {
      const nonces = new BigUint64Array(batch.count);
      randomFillSync(nonces);
      let duplicates = 0;
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
        rows.push({
          site: batch.site,
          at,
          day: dayOf(at),
          page: batch.page[index],
          // Int64 and UInt64 as decimal strings: JSON numbers lose precision past 2^53.
          visitor: batch.visitor[index]!.toString(),
          class: batch.classCode[index],
          agent: batch.agent[index],
          user_agent: batch.userAgent[index],
          referrer: batch.referrer[index] ?? null,
          markdown_accept: batch.markdownAccept[index],
          classifier_version: batch.classifierVersion,
          event_id: eventId ?? '',
          nonce: eventId === null ? nonces[index]!.toString() : '0',
        });
      }
      return { stored: batch.count - duplicates, duplicates };
    });
    if (rows.length > 0) await this.client.insert({ table: readTable(this.target, 'analytics_hits'), values: rows, format: 'JSONEachRow' });
    return results;
  }
}
