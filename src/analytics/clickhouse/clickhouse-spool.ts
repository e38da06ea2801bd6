import type BetterSqlite3 from 'better-sqlite3';
import { openSqliteConnection } from '../../db/sqlite-database.js';

/** One accepted batch waiting to be written into ClickHouse. */
export interface SpoolRecord {
  id: number;
  site: number;
  hits: number;
  payload: Buffer;
}

/** What is waiting and not claimed by a drain (of this process or another sharing the file). */
export interface SpoolBacklog {
  /** Hits in records no drain holds. */
  hits: number;
  /** When the oldest of those records was added (ms), or null. */
  oldestAddedAt: number | null;
  /** Records a drain holds now (its lease not run out). */
  claimedRecords: number;
}

/**
 * The durable spool in front of ClickHouse (docs/analytics.md, "ClickHouse"): accepted
 * batches are committed here, in a SQLite file of the process's data directory, before the
 * request is answered, and drained into ClickHouse in large inserts (ClickHouse spends
 * about the same per insert whatever its size, so a request's thousand rows on their own
 * cost it 5–8 times more per hit than tens of thousands together).
 *
 * Several processes may share the file: a drain claims records for a lease, in one
 * immediate transaction, and deletes them once ClickHouse has their rows; a drain that died
 * leaves its claim to run out, and the records are taken again (their rows then reach
 * ClickHouse twice, which counts them once: see SpooledHits).
 */
export class ClickHouseSpool {
  private readonly connection: BetterSqlite3.Database;
  private readonly insert: BetterSqlite3.Statement<[number, number, number, Buffer]>;
  private readonly insertEventId: BetterSqlite3.Statement<[number, string, number]>;
  private readonly findEventIds: BetterSqlite3.Statement<[number, string]>;
  private readonly removeEventIds: BetterSqlite3.Statement<[number]>;
  private readonly pending: BetterSqlite3.Statement<[]>;
  private readonly backlogQuery: BetterSqlite3.Statement<[{ now: number }]>;
  private readonly takeable: BetterSqlite3.Statement<[number]>;
  private readonly claim: BetterSqlite3.Statement<[number, number]>;
  private readonly remove: BetterSqlite3.Statement<[number]>;
  private readonly unclaim: BetterSqlite3.Statement<[number]>;
  private readonly last: BetterSqlite3.Statement<[]>;
  private readonly atOrBefore: BetterSqlite3.Statement<[number]>;
  private readonly setAside: BetterSqlite3.Statement<[{ reason: string; now: number; id: number }]>;

  /** `file`: the spool's SQLite file, or ':memory:' for a spool that lives as long as the process. */
  constructor(readonly file: string) {
    this.connection = openSqliteConnection(file);
    this.connection.exec(`
      create table if not exists spooled_hits (
        id integer primary key autoincrement,
        site integer not null,
        hits integer not null,
        added_at integer not null,
        claimed_until integer not null default 0,
        payload blob not null
      );
      -- The event ids of each record, for the duplicate check of every process sharing the file.
      create table if not exists spooled_event_ids (
        site integer not null,
        event_id text not null,
        record integer not null
      );
      create index if not exists spooled_event_ids_by_id on spooled_event_ids (site, event_id);
      create index if not exists spooled_event_ids_by_record on spooled_event_ids (record);
      create table if not exists rejected_spooled_hits (
        id integer primary key,
        site integer not null,
        hits integer not null,
        added_at integer not null,
        rejected_at integer not null,
        reason text not null,
        payload blob not null
      );`);
    this.insert = this.connection.prepare('insert into spooled_hits (site, hits, added_at, payload) values (?, ?, ?, ?)');
    this.insertEventId = this.connection.prepare('insert into spooled_event_ids (site, event_id, record) values (?, ?, ?)');
    this.findEventIds = this.connection
      .prepare('select distinct event_id from spooled_event_ids where site = ? and event_id in (select value from json_each(?))')
      .pluck();
    this.removeEventIds = this.connection.prepare('delete from spooled_event_ids where record = ?');
    this.pending = this.connection.prepare('select coalesce(sum(hits), 0) as hits from spooled_hits');
    this.backlogQuery = this.connection.prepare(
      `select coalesce(sum(case when claimed_until <= @now then hits end), 0) as hits,
         min(case when claimed_until <= @now then added_at end) as oldest,
         count(*) - count(case when claimed_until <= @now then 1 end) as claimed
       from spooled_hits`,
    );
    this.takeable = this.connection.prepare('select id, site, hits, payload from spooled_hits where claimed_until <= ? order by id');
    this.claim = this.connection.prepare('update spooled_hits set claimed_until = ? where id = ?');
    this.remove = this.connection.prepare('delete from spooled_hits where id = ?');
    this.unclaim = this.connection.prepare('update spooled_hits set claimed_until = 0 where id = ?');
    this.last = this.connection.prepare('select coalesce(max(id), 0) as id from spooled_hits');
    this.atOrBefore = this.connection.prepare('select exists (select 1 from spooled_hits where id <= ?) as found');
    this.setAside = this.connection.prepare(
      `insert or replace into rejected_spooled_hits (id, site, hits, added_at, rejected_at, reason, payload)
       select id, site, hits, added_at, @now, @reason, payload from spooled_hits where id = @id`,
    );
  }

  /** Adds one batch, with its event ids; returns its id (ids grow in the order batches are added). Call inside `transaction`. */
  append(site: number, hits: number, payload: Buffer, now: number, eventIds: readonly string[]): number {
    const id = Number(this.insert.run(site, hits, now, payload).lastInsertRowid);
    for (const eventId of eventIds) this.insertEventId.run(site, eventId, id);
    return id;
  }

  /** Which of `eventIds` a waiting record of `site` holds. */
  spooledEventIds(site: number, eventIds: readonly string[]): string[] {
    return this.findEventIds.all(site, JSON.stringify(eventIds)) as string[];
  }

  /** Runs `work` (appends) in one transaction: one commit for a group of batches. */
  transaction(work: () => void): void {
    this.connection.transaction(work)();
  }

  /** Hits waiting, claimed or not. */
  pendingHits(): number {
    return (this.pending.get() as { hits: number }).hits;
  }

  backlog(now: number): SpoolBacklog {
    const row = this.backlogQuery.get({ now }) as { hits: number; oldest: number | null; claimed: number };
    return { hits: row.hits, oldestAddedAt: row.oldest, claimedRecords: row.claimed };
  }

  /**
   * Claims records no one holds, oldest first, until they reach `maxHits` (at least one
   * record), for `leaseMs`; in one immediate transaction, so two drains never take the same.
   */
  take(maxHits: number, now: number, leaseMs: number): SpoolRecord[] {
    return this.connection
      .transaction(() => {
        const records: SpoolRecord[] = [];
        let hits = 0;
        for (const row of this.takeable.iterate(now) as IterableIterator<SpoolRecord>) {
          if (records.length > 0 && hits + row.hits > maxHits) break;
          records.push(row);
          hits += row.hits;
        }
        for (const record of records) this.claim.run(now + leaseMs, record.id);
        return records;
      })
      .immediate();
  }

  /** Deletes records whose rows ClickHouse has. */
  complete(ids: readonly number[]): void {
    this.connection.transaction(() => {
      for (const id of ids) {
        this.remove.run(id);
        this.removeEventIds.run(id);
      }
    })();
  }

  /** Gives claimed records back at once, for the next drain. */
  release(ids: readonly number[]): void {
    this.connection.transaction(() => ids.forEach((id) => this.unclaim.run(id)))();
  }

  /** Moves a record that cannot be read into rejected_spooled_hits, kept for inspection, out of the drain's way. */
  reject(id: number, reason: string, now: number): void {
    this.connection.transaction(() => {
      this.setAside.run({ reason: reason.slice(0, 1_000), now, id });
      this.remove.run(id);
      this.removeEventIds.run(id);
    })();
  }

  /** The newest record's id, 0 when the spool is empty. */
  lastId(): number {
    return (this.last.get() as { id: number }).id;
  }

  /** Whether any record up to `id` is still waiting. */
  hasAtOrBefore(id: number): boolean {
    return (this.atOrBefore.get(id) as { found: number }).found === 1;
  }

  close(): void {
    if (this.connection.open) this.connection.close();
  }
}
