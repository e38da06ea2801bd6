import type BetterSqlite3 from 'better-sqlite3';
import type pg from 'pg';
import type { Clock } from '../../core/clock.js';
import type { Database } from '../../db/database.js';
import { ledgerKeyBound } from './ledger-key.js';

/** A verified nonce of a batch, to be claimed in the shared table in the batch's own transaction. */
export interface NonceClaim {
  /** The batch row that used it. */
  row: number;
  /**
   * `ledgerKey` (ledger-key.ts): the expiry in 10 hex digits, then a hex hash of
   * (Signature-Agent origin, key id, nonce), NonceRegistry's fingerprint, wider. The expiry
   * first orders the keys by expiry, which the SQLite prune relies on.
   */
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
 * The claim (the nonces migration's table, which every server process of a deployment shares):
 * each nonce inserted atomically (a unique key, so of two transactions claiming one nonce
 * exactly one wins; PostgreSQL makes the second wait until the first commits or rolls
 * back), taking over a row whose signature has expired. A nonce another event claimed
 * first is a replay; the same event again (a retried batch) is not. It runs inside the
 * transaction that stores the batch's hits, so a claim commits exactly when its hits do.
 * `NOW` stands for each dialect's placeholder of the current time in seconds.
 */
export const UPSERT_CONFLICT = `on conflict (nonce) do update set expires_at = excluded.expires_at, owner = excluded.owner where n.expires_at < NOW`;
/** UPSERT_CONFLICT naming the nonces it took (PostgreSQL, which claims a batch in one statement). */
export const UPSERT_TAIL = `${UPSERT_CONFLICT}
  returning nonce`;

/**
 * PostgreSQL: one statement text whatever the count (arrays), rows in key order so two
 * transactions claiming overlapping sets lock them in one order and cannot deadlock.
 */
const POSTGRES_CLAIM = `insert into analytics_signature_nonces as n (nonce, expires_at, owner)
  select nonce, expires_at, owner from unnest($2::text[], $3::bigint[], $4::text[]) as given (nonce, expires_at, owner) order by nonce
  ${UPSERT_TAIL.replace('NOW', '$1::bigint')}`;

/** One claim per key: the first row of a batch (or group) that carries it; later ones are replays within it. */
export function planClaims(claims: readonly NonceClaim[]): { unique: NonceClaim[]; replays: Set<number> } {
  const replays = new Set<number>();
  const first = new Map<string, NonceClaim>();
  for (const claim of claims) {
    const earlier = first.get(claim.key);
    if (earlier === undefined) first.set(claim.key, claim);
    else if (earlier.owner === '' || earlier.owner !== claim.owner) replays.add(claim.row);
  }
  const unique = [...first.values()].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return { unique, replays };
}

/** Claims lost to a live row are replays unless that row is the same event's (owner). */
function settleLost(lost: readonly NonceClaim[], owners: ReadonlyMap<string, string>, replays: Set<number>): void {
  for (const claim of lost) if (claim.owner === '' || owners.get(claim.key) !== claim.owner) replays.add(claim.row);
}

/**
 * Claims on SQLite, synchronously, inside the caller's open write transaction (the
 * connection is the caller's for the duration: `begin immediate` under Kysely's lock).
 * One single-row statement per nonce: inside an explicit transaction a multi-row upsert
 * costs about twice the CPU of ten single-row runs (≈ 260 µs against ≈ 130 µs for ten
 * nonces; SQLite keeps a statement journal to undo a multi-row statement on its own).
 * Without `returning`: SQLite buffers a returning statement's rows in a table of its own
 * even for one row, and the change count says the same (1: inserted or an expired row taken
 * over; 0: a live row holds the nonce). Returns the rows that are replays.
 */
export class SqliteNonceClaimer {
  private statements: { upsert: BetterSqlite3.Statement; owner: BetterSqlite3.Statement; release: BetterSqlite3.Statement } | undefined;

  constructor(private readonly connection: BetterSqlite3.Database) {}

  claim(claims: readonly NonceClaim[], nowSeconds: number): Set<number> {
    return this.claimTaking(claims, nowSeconds).replays;
  }

  /** As claim, and also the claims this call took (inserted, or taken over from an expired row): what release() gives back. */
  claimTaking(claims: readonly NonceClaim[], nowSeconds: number): { replays: Set<number>; taken: NonceClaim[] } {
    const { unique, replays } = planClaims(claims);
    const { upsert, owner } = this.prepare();
    const lost: NonceClaim[] = [];
    const taken: NonceClaim[] = [];
    for (const claim of unique) (upsert.run(claim.key, claim.expiresAt, claim.owner, nowSeconds).changes === 0 ? lost : taken).push(claim);
    if (lost.length > 0) settleLost(lost, new Map(lost.map((claim) => [claim.key, owner.get(claim.key) as string])), replays);
    return { replays, taken };
  }

  /**
   * Deletes rows that `taken` claimed, inside the caller's write transaction: their hits were
   * not stored. A row matches only with the same owner and expiry, so a later claim of the
   * nonce (possible only once this one expired) is left alone; an expired row and no row
   * are the same to the next claim.
   */
  release(taken: readonly NonceClaim[]): void {
    const { release } = this.prepare();
    for (const claim of taken) release.run(claim.key, claim.owner, claim.expiresAt);
  }

  // Prepared at first use: the store may be built before the migrations have run.
  private prepare() {
    return (this.statements ??= {
      upsert: this.connection.prepare(`insert into analytics_signature_nonces as n (nonce, expires_at, owner) values (?, ?, ?)
        ${UPSERT_CONFLICT.replace('NOW', '?')}`),
      owner: this.connection.prepare('select owner from analytics_signature_nonces where nonce = ?').pluck(),
      release: this.connection.prepare('delete from analytics_signature_nonces where nonce = ? and owner = ? and expires_at = ?'),
    });
  }
}

/** Claims on PostgreSQL inside the caller's open transaction on `client`; returns the rows that are replays. */
export async function claimNoncesPostgres(client: pg.ClientBase, claims: readonly NonceClaim[], nowSeconds: number): Promise<Set<number>> {
  const { unique, replays } = planClaims(claims);
  if (unique.length === 0) return replays;
  const { rows } = await client.query<{ nonce: string }>(POSTGRES_CLAIM, [
    nowSeconds,
    unique.map((claim) => claim.key),
    unique.map((claim) => claim.expiresAt),
    unique.map((claim) => claim.owner),
  ]);
  const taken = new Set(rows.map((row) => row.nonce));
  const lost = unique.filter((claim) => !taken.has(claim.key));
  if (lost.length > 0) {
    // Read committed: the row that beat us is committed by now (the insert waited for it).
    const owners = await client.query<{ nonce: string; owner: string }>('select nonce, owner from analytics_signature_nonces where nonce = any($1::text[])', [
      lost.map((claim) => claim.key),
    ]);
    settleLost(lost, new Map(owners.rows.map((row) => [row.nonce, row.owner])), replays);
  }
  return replays;
}

/**
 * Deletes expired rows of the nonce table, in the background and at most once a minute per
 * process: the table holds at most a day of signed traffic. The claims themselves run in
 * the stores' insert transactions (SqliteNonceClaimer, claimNoncesPostgres).
 */
export class NonceLedger {
  private lastPrune = 0;
  private pruning: Promise<void> | null = null;

  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {}

  /** Called after a batch with signed nonces is stored: starts a prune when one is due. */
  maybePrune(): void {
    if (this.pruning !== null || this.clock.now() - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = this.clock.now();
    this.pruning = this.prune(Math.floor(this.lastPrune / 1000))
      .then(() => undefined, this.onError)
      .finally(() => {
        this.pruning = null;
      });
  }

  /** Resolves when no background prune is running; for tests and close(). */
  async settled(): Promise<void> {
    await this.pruning;
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
        deleted = await this.database.db.connection().execute(
          async () =>
            raw.connection
              // Keyed by the key alone (the nonce-ledger-keyed migration), which leads with the
              // expiry: the expired rows are the keys below the current second's, a range of it.
              .prepare('delete from analytics_signature_nonces where nonce in (select nonce from analytics_signature_nonces where nonce < ? limit ?)')
              .run(ledgerKeyBound(now), PRUNE_BATCH).changes,
        );
      }
      total += deleted;
      if (deleted < PRUNE_BATCH) return total;
    }
  }
}
