import type BetterSqlite3 from 'better-sqlite3';
import type { HitBatch, InsertHitsResult } from './analytics-store.js';

const COLUMNS = [
  'site',
  'at',
  'page',
  'visitor',
  'class',
  'agent',
  'user_agent',
  'referrer',
  'markdown_accept',
  'classifier_version',
  'category',
  'verification',
  'read_kind',
  'status',
  'referral',
  'address_block',
  'evidence',
] as const;

/**
 * Rows per insert statement. One statement per row spends over a quarter of its CPU on the
 * statement itself (bind, step, reset): 50 rows per statement cost 1.5 µs of CPU per hit
 * against 2.1 µs, inside the same 1,000-row transactions (bench/sqlite-hit-insert-experiment.ts,
 * docs/benchmarks.md "SQLite ingest: 50 rows per insert statement"); 100 saved only about
 * 0.05 µs more in a first try.
 */
export const ROWS_PER_STATEMENT = 50;

const insertSql = (rows: number): string => {
  const tuple = `(${COLUMNS.map(() => '?').join(', ')})`;
  return `insert into analytics_hits (${COLUMNS.join(', ')}) values ${Array.from({ length: rows }, () => tuple).join(', ')}`;
};

/**
 * Writes a batch's hits into `analytics_hits`, inside the caller's transaction, in the
 * batch's order (so `seq` follows it as before). Hits whose event id is already stored are
 * skipped; the check runs per hit before the hit is queued, so a batch repeating an id
 * stores it once.
 */
export class SqliteHitWriter {
  private readonly many: BetterSqlite3.Statement;
  private readonly one: BetterSqlite3.Statement;
  private readonly insertEventId: BetterSqlite3.Statement;
  /** Reused bind arrays: a batch of 1,000 hits would otherwise allocate 17,000 slots. */
  private readonly queued: unknown[] = new Array<unknown>(ROWS_PER_STATEMENT * COLUMNS.length);
  private readonly single: unknown[] = new Array<unknown>(COLUMNS.length);

  constructor(connection: BetterSqlite3.Database) {
    this.many = connection.prepare(insertSql(ROWS_PER_STATEMENT));
    this.one = connection.prepare(insertSql(1));
    this.insertEventId = connection.prepare('insert or ignore into analytics_event_ids (site, event_id, at) values (?, ?, ?)');
  }

  write(batch: HitBatch): InsertHitsResult {
    let queuedRows = 0;
    let duplicates = 0;
    for (let index = 0; index < batch.count; index++) {
      const eventId = batch.eventId[index] ?? null;
      if (eventId !== null && this.insertEventId.run(batch.site, eventId, batch.at[index]).changes === 0) {
        duplicates++;
        continue;
      }
      fillRow(this.queued, queuedRows * COLUMNS.length, batch, index);
      if (++queuedRows === ROWS_PER_STATEMENT) {
        this.many.run(this.queued);
        queuedRows = 0;
      }
    }
    // The tail, fewer than ROWS_PER_STATEMENT rows: one statement each rather than a prepared statement per tail length.
    for (let row = 0; row < queuedRows; row++) {
      for (let column = 0; column < COLUMNS.length; column++) this.single[column] = this.queued[row * COLUMNS.length + column];
      this.one.run(this.single);
    }
    return { stored: batch.count - duplicates, duplicates };
  }
}

/** The hit at `index` as COLUMNS, from `offset` in `target`; zero codes that mean "none" are stored as null. */
function fillRow(target: unknown[], offset: number, batch: HitBatch, index: number): void {
  const agent = batch.agent[index]!;
  const userAgent = batch.userAgent[index]!;
  const status = batch.status[index]!;
  const referral = batch.referral[index]!;
  target[offset] = batch.site;
  target[offset + 1] = batch.at[index];
  target[offset + 2] = batch.page[index];
  target[offset + 3] = batch.visitor[index];
  target[offset + 4] = batch.classCode[index];
  target[offset + 5] = agent === 0 ? null : agent;
  target[offset + 6] = userAgent === 0 ? null : userAgent;
  target[offset + 7] = batch.referrer[index] ?? null;
  target[offset + 8] = batch.markdownAccept[index];
  target[offset + 9] = batch.classifierVersion;
  target[offset + 10] = batch.category[index];
  target[offset + 11] = batch.verification[index];
  target[offset + 12] = batch.readKind[index];
  target[offset + 13] = status === 0 ? null : status;
  target[offset + 14] = referral === 0 ? null : referral;
  target[offset + 15] = batch.addressBlock?.[index] ?? null;
  target[offset + 16] = batch.evidence?.[index] ?? 0;
}
