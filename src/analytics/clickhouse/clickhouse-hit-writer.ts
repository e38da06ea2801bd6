import { randomFillSync } from 'node:crypto';
import { Readable } from 'node:stream';
import type { ClickHouseClient } from '@clickhouse/client';
import type { HitBatch, InsertHitsResult } from '../analytics-store.js';
import { dayOf } from '../analytics-codes.js';
import { HIT_COLUMNS, HitRowEncoder, wordsOf } from './clickhouse-hit-rows.js';
import { listLiteral, raw, sql } from './clickhouse-literal.js';
import type { ClickHouseGenerations, GenerationMap } from './clickhouse-generations.js';
import { readTable, type ClickHouseTarget } from './clickhouse-migrations.js';

/** Batches written together at most: one check and one insert of up to this many requests' hits. */
const MAX_GROUP_BATCHES = 64;

/** The hits of one batch a group writes (event ids already stored left out), with what their rows need. */
interface KeptHits {
  batch: HitBatch;
  /** Row indexes into the batch. */
  rows: Int32Array;
  /** The UTC day of each of those rows, which decides its generations. */
  days: Int32Array;
  /** The batch's visitors and the group's nonces for it, as 32-bit words (HitRowEncoder). */
  visitorWords: Uint32Array;
  nonceWords: Uint32Array;
}

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
    private readonly generations: ClickHouseGenerations,
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
    const site = batches[0]!.site;
    const seen = await this.storedIds(site, batches);
    const kept: KeptHits[] = [];
    const results = batches.map((batch) => {
      const nonces = new BigUint64Array(batch.count);
      randomFillSync(nonces);
      const rows = new Int32Array(batch.count);
      const days = new Int32Array(batch.count);
      let count = 0;
      for (let index = 0; index < batch.count; index++) {
        const eventId = batch.eventId[index] ?? null;
        if (eventId !== null) {
          if (seen.has(eventId)) continue;
          seen.add(eventId);
        }
        days[count] = dayOf(batch.at[index]!);
        rows[count++] = index;
      }
      if (count > 0) {
        kept.push({ batch, rows: rows.subarray(0, count), days: days.subarray(0, count), visitorWords: wordsOf(batch.visitor), nonceWords: wordsOf(nonces) });
      }
      return { stored: count, duplicates: batch.count - count };
    });
    if (kept.length > 0) await this.writeGenerations(site, kept);
    return results;
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
      rows += hits.rows.length;
      for (const day of hits.days) if (!written.has(day)) written.set(day, new Set());
    }
    // Read before the insert too (not remembered from the last one), so a switch since then leaves no row in a superseded generation.
    let map: GenerationMap = await this.generations.of(site);
    for (;;) {
      const fresh = new Map<number, number[]>();
      for (const [day, gens] of written) {
        const targets = map.targets(day).filter((gen) => !gens.has(gen));
        for (const gen of targets) gens.add(gen);
        if (targets.length > 0) fresh.set(day, targets);
      }
      if (fresh.size === 0) break;
      const encoder = new HitRowEncoder(rows);
      for (const hits of kept) {
        hits.rows.forEach((index, position) => {
          for (const gen of fresh.get(hits.days[position]!) ?? []) encoder.row(gen, hits.batch, index, hits.visitorWords, hits.nonceWords);
        });
      }
      await this.client.insert({
        table: readTable(this.target, 'analytics_hits'),
        columns: [...HIT_COLUMNS],
        values: Readable.from([encoder.bytes()], { objectMode: false }),
        format: 'TabSeparated',
      });
      map = await this.generations.of(site);
    }
  }
}
