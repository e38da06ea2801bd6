import type BetterSqlite3 from 'better-sqlite3';
import type { Clock } from '../../core/clock.js';
import type { Database } from '../../db/database.js';

/** A verified nonce of a batch, to be claimed in the shared table before the batch is stored. */
export interface NonceClaim {
  /** The batch row that used it. */
  row: number;
  /** Hex hash of (Signature-Agent origin, key id, nonce): NonceRegistry's fingerprint, wider. */
  key: string;
  /** Seconds since the epoch; the row is kept until then. */
  expiresAt: number;
  /** Hex hash of the event id, '' for none. */
  owner: string;
}

/** How often expired rows are deleted, at most. */
const PRUNE_EVERY_MS = 60_000;
/** Rows deleted per prune statement: a long outage's backlog goes in several short steps. */
const PRUNE_BATCH = 5_000;

/**
 * The nonce table every server process of a deployment shares (migration 015): the
 * process's shared-memory NonceRegistry catches replays among its own threads for free;
 * this catches the ones sent to another process. One statement per batch that carries
 * signed nonces (none for most batches), before the batch is stored: the insert claims each
 * nonce atomically (a unique key, so of two processes claiming one nonce exactly one wins),
 * taking over a row whose signature has expired. A nonce another event claimed first is a
 * replay; the same event again (a retried batch) is not.
 */
export class NonceLedger {
  private sqliteStatements = new Map<number, BetterSqlite3.Statement>();
  private lastPrune = 0;
  private pruning: Promise<void> | null = null;

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {}

  /** Claims the nonces; returns the rows whose nonce another event had claimed first (replays). */
  async claim(claims: readonly NonceClaim[]): Promise<Set<number>> {
    const replays = new Set<number>();
    if (claims.length === 0) return replays;
    const now = Math.floor(this.clock.now() / 1000);
    // One claim per key: two rows of one batch with the same nonce are a replay within it.
    const first = new Map<string, NonceClaim>();
    for (const claim of claims) {
      const earlier = first.get(claim.key);
      if (earlier === undefined) first.set(claim.key, claim);
      else if (earlier.owner === '' || earlier.owner !== claim.owner) replays.add(claim.row);
    }
    const unique = [...first.values()];
    const taken = await this.insert(unique, now);
    const lost = unique.filter((claim) => !taken.has(claim.key));
    if (lost.length > 0) {
      const owners = await this.owners(lost.map((claim) => claim.key));
      for (const claim of lost) if (claim.owner === '' || owners.get(claim.key) !== claim.owner) replays.add(claim.row);
    }
    this.maybePrune(now);
    return replays;
  }

  /** Resolves when no background prune is running; for tests. */
  async settled(): Promise<void> {
    await this.pruning;
  }

  private async insert(claims: readonly NonceClaim[], now: number): Promise<Set<string>> {
    const raw = this.database.raw;
    const values = claims.map((_, index) => (raw.dialect === 'postgres' ? `($${index * 3 + 2}, $${index * 3 + 3}::bigint, $${index * 3 + 4})` : '(?, ?, ?)'));
    const parameters = claims.flatMap((claim) => [claim.key, claim.expiresAt, claim.owner]);
    const now$ = raw.dialect === 'postgres' ? '$1::bigint' : '?';
    const text = `insert into analytics_signature_nonces as n (nonce, expires_at, owner) values ${values.join(', ')}
      on conflict (nonce) do update set expires_at = excluded.expires_at, owner = excluded.owner where n.expires_at < ${now$}
      returning nonce`;
    if (raw.dialect === 'postgres') {
      const { rows } = await raw.pool.query<{ nonce: string }>(text, [now, ...parameters]);
      return new Set(rows.map((row) => row.nonce));
    }
    // Under Kysely's connection lock, like every SQLite write.
    return this.database.db.connection().execute(async () => {
      let statement = this.sqliteStatements.get(claims.length);
      if (statement === undefined) {
        statement = raw.connection.prepare(text);
        if (this.sqliteStatements.size > 64) this.sqliteStatements.clear();
        this.sqliteStatements.set(claims.length, statement);
      }
      const rows = statement.all(...parameters, now) as Array<{ nonce: string }>;
      return new Set(rows.map((row) => row.nonce));
    });
  }

  private async owners(keys: readonly string[]): Promise<Map<string, string>> {
    const raw = this.database.raw;
    if (raw.dialect === 'postgres') {
      const { rows } = await raw.pool.query<{ nonce: string; owner: string }>(
        'select nonce, owner from analytics_signature_nonces where nonce = any($1::text[])',
        [keys],
      );
      return new Map(rows.map((row) => [row.nonce, row.owner]));
    }
    return this.database.db.connection().execute(async () => {
      const rows = raw.connection
        .prepare(`select nonce, owner from analytics_signature_nonces where nonce in (${keys.map(() => '?').join(', ')})`)
        .all(...keys) as Array<{ nonce: string; owner: string }>;
      return new Map(rows.map((row) => [row.nonce, row.owner]));
    });
  }

  /** Deletes expired rows in the background, at most once a minute per process: the table holds a day of signed traffic at most. */
  private maybePrune(now: number): void {
    if (this.pruning !== null || this.clock.now() - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = this.clock.now();
    this.pruning = this.prune(now)
      .then(() => undefined, this.onError)
      .finally(() => {
        this.pruning = null;
      });
  }

  /** Deletes rows expired before `now` (seconds), in steps; returns how many. */
  async prune(now: number): Promise<number> {
    const raw = this.database.raw;
    let total = 0;
    for (;;) {
      let deleted: number;
      if (raw.dialect === 'postgres') {
        const result = await raw.pool.query(
          'delete from analytics_signature_nonces where nonce in (select nonce from analytics_signature_nonces where expires_at < $1::bigint limit $2)',
          [now, PRUNE_BATCH],
        );
        deleted = result.rowCount ?? 0;
      } else {
        deleted = await this.database.db
          .connection()
          .execute(
            async () =>
              raw.connection
                .prepare('delete from analytics_signature_nonces where nonce in (select nonce from analytics_signature_nonces where expires_at < ? limit ?)')
                .run(now, PRUNE_BATCH).changes,
          );
      }
      total += deleted;
      if (deleted < PRUNE_BATCH) return total;
    }
  }
}
