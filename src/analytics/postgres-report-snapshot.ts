import type pg from 'pg';
import type { AnalyticsReader, UnfoldedHits } from './analytics-store.js';

/** The pending batches of the snapshot, as an array literal, its bounds (for the block-range index) and their hits; null ids when none. */
const PENDING_BATCHES = `select '{' || string_agg(id::text, ',') || '}' as ids, min(id)::text as lowest, max(id)::text as highest,
  coalesce(sum(hits), 0)::text as hits from analytics_ingest_batches`;

/**
 * Hits of the pending batches: the bounds go to the block-range index, the exact list is
 * a filter on the rows it finds (`+batch`: an array in the index condition is tested
 * against every block range, element by element; with 8,480 pending batches over 10M
 * hits that index scan alone took 16–24 s, against 0.06 s for the bounds).
 */
export const PENDING_HITS = 'batch between ? and ? and +batch = any(?::bigint[])';

/**
 * A report on PostgreSQL, inside one repeatable-read, read-only transaction on `client`. Its snapshot holds
 * the pending batches and the rollups as one fold left them (a fold deletes its batches
 * in the transaction that writes their rollups), so each hit is counted once, from the
 * rollups or from the raw hits of a pending batch. It takes no lock a fold takes, so it
 * neither waits for a fold nor holds one up.
 */
export async function readSnapshot<T>(client: pg.PoolClient, numbered: (sql: string) => string, work: (reader: AnalyticsReader) => Promise<T>): Promise<T> {
  const { rows } = await client.query<{ ids: string | null; lowest: string | null; highest: string | null; hits: string }>(PENDING_BATCHES);
  const pending = rows[0]!;
  let unfolded: UnfoldedHits | null = null;
  if (pending.ids !== null) {
    unfolded = { condition: PENDING_HITS, parameters: [pending.lowest, pending.highest, pending.ids], hits: Number(pending.hits) };
    // As in a fold step: before autovacuum has analysed fresh hits, the planner takes
    // the table for small and would scan all of it rather than use the block-range index.
    await client.query('set local enable_seqscan = off');
  }
  return work({
    dialect: 'postgres',
    unfolded,
    select: async <Row>(sql: string, parameters: readonly unknown[]) => (await client.query(numbered(sql), [...parameters])).rows as Row[],
  });
}
