import { randomFillSync } from 'node:crypto';
import { Readable } from 'node:stream';
import type { ClickHouseClient } from '@clickhouse/client';
import type { HitBatch, InsertHitsResult } from '../analytics-store.js';
import { dayOf } from '../analytics-codes.js';
import { listLiteral, raw, sql, tsvField } from './clickhouse-literal.js';
import type { ClickHouseGenerations, GenerationMap } from './clickhouse-generations.js';
import { readTable, type ClickHouseTarget } from './clickhouse-migrations.js';

/** Columns of the insert, in the order of each line. */
const HIT_COLUMNS = [
  'gen',
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
  'address_block',
  'evidence',
] as const;

/** 0 is "none" in the batch arrays and null (`\N`) in the table. */
const orNull = (value: number): string => (value === 0 ? '\\N' : String(value));

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
    // Rows as TabSeparated text (without the generation): far less work than an object and JSON per row.
    const lines: string[] = [];
    const days: number[] = [];
    const results = batches.map((batch) => {
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
        days.push(dayOf(at));
        lines.push(
          fixed +
            `${at}\t${dayOf(at)}\t${batch.page[index]}\t${batch.visitor[index]}\t${batch.classCode[index]}\t${batch.agent[index]}\t${batch.userAgent[index]}\t` +
            `${tsvField(batch.referrer[index] ?? null)}\t${batch.markdownAccept[index]}${version}${tsvField(eventId ?? '')}\t${eventId === null ? nonces[index] : 0}\t` +
            `${batch.category[index]}\t${batch.verification[index]}\t${batch.readKind[index]}\t${orNull(batch.status[index]!)}\t${orNull(batch.referral[index]!)}\t` +
            `${tsvField(batch.addressBlock?.[index] ?? null)}\t${batch.evidence?.[index] ?? 0}\n`,
        );
      }
      return { stored: batch.count - duplicates, duplicates };
    });
    if (lines.length > 0) await this.writeGenerations(site, lines, days);
    return results;
  }

  /**
   * Writes each line into every generation that must have it: the one answering for its
   * day and each one a reclassification is writing (clickhouse-generations.ts). The
   * generations are read again after every insert, and lines are written into those that
   * appeared meanwhile, until nothing changed: a reclassification claims its generation
   * before it reads the hits to copy, so a hit is either copied by it or written into it
   * here, and the write returns only then (a hit is counted once its write returns).
   */
  private async writeGenerations(site: number, lines: readonly string[], days: readonly number[]): Promise<void> {
    const written = lines.map(() => new Set<number>());
    // Read before the insert too (not remembered from the last one), so a switch since then leaves no row in a superseded generation.
    let map: GenerationMap = await this.generations.of(site);
    for (;;) {
      const text: string[] = [];
      lines.forEach((line, index) => {
        for (const gen of map.targets(days[index]!)) {
          if (written[index]!.has(gen)) continue;
          written[index]!.add(gen);
          text.push(`${gen}\t${line}`);
        }
      });
      if (text.length === 0) break;
      await this.client.insert({
        table: readTable(this.target, 'analytics_hits'),
        columns: [...HIT_COLUMNS],
        values: Readable.from([Buffer.from(text.join(''))], { objectMode: false }),
        format: 'TabSeparated',
      });
      map = await this.generations.of(site);
    }
  }
}
