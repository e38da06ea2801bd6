import fc from 'fast-check';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { VERIFICATION_CODES } from '../../../src/analytics/analytics-codes.js';
import type { AnalyticsStore } from '../../../src/analytics/analytics-store.js';
import { ClickHouseAnalyticsStore } from '../../../src/analytics/clickhouse/clickhouse-analytics-store.js';
import { sqlAnalyticsStore } from '../../../src/analytics/sql-analytics-store.js';
import { NonceLedger, type NonceClaim } from '../../../src/analytics/verification/nonce-ledger.js';
import { ledgerKey, ledgerKeyBound } from '../../../src/analytics/verification/ledger-key.js';
import { parseClickHouseSettings, type ClickHouseSettings } from '../../../src/config/clickhouse-settings.js';
import type { Config } from '../../../src/config/load-config.js';
import { ManualClock } from '../../../src/core/clock.js';
import type { Database } from '../../../src/db/database.js';
import { openPostgresDatabase } from '../../../src/db/postgres-database.js';
import { openSqliteDatabase } from '../../../src/db/sqlite-database.js';
import { clickhouseRows } from '../../helpers/clickhouse-rows.js';
import { injectConnectionFaults } from '../../helpers/connection-faults.js';
import { claimedBatch, claimedNonces, hitInsertFailure, spoofedRows, testLedgerKey } from '../../helpers/nonce-batches.js';
import { ANALYTICS_BACKENDS, createClickHouseDatabase, openTestDatabase, primaryDialect, type TestDatabase } from '../../helpers/test-database.js';

const NOW = Date.UTC(2026, 10, 24, 12);
const SECONDS = NOW / 1000;

// On ClickHouse the hits go there and the nonces stay in the main database (SQLite here): the claim
// commits first and is deleted if the ClickHouse insert fails (docs/analytics.md, "ClickHouse").
describe.each(ANALYTICS_BACKENDS)('the nonce claim inside the hit batch’s own transaction [%s]', (backend) => {
  const dialect = primaryDialect(backend);
  let first: TestDatabase;
  let second: Database;
  let one: AnalyticsStore;
  let two: AnalyticsStore;
  let site: number;
  let version: number;
  let clickhouse: { settings: ClickHouseSettings; drop(): Promise<void> } | undefined;
  beforeEach(async () => {
    first = await openTestDatabase(dialect);
    // Another connection (pool) to the same database: another server process.
    second = dialect === 'postgres' ? openPostgresDatabase(first.location, { maxConnections: 5 }) : openSqliteDatabase(first.location);
    await sql`insert into projects (id, name, repository, forge, created_at, updated_at) values ('p', 'Docs', '/docs', 'local', ${NOW}, ${NOW})`.execute(
      first.database.db,
    );
    one = sqlAnalyticsStore(first.database);
    two = sqlAnalyticsStore(second);
    if (backend === 'clickhouse') {
      const created = createClickHouseDatabase();
      clickhouse = { settings: parseClickHouseSettings({ url: created.environment.DOCWRIGHT_ANALYTICS_URL! }), drop: () => created.drop() };
      const clock = new ManualClock(NOW);
      const chOne = new ClickHouseAnalyticsStore(one, clickhouse.settings, clock);
      await chOne.ready();
      one = chOne;
      two = new ClickHouseAnalyticsStore(two, clickhouse.settings, clock);
    }
    site = await one.ensureSite('p');
    version = await one.ensureClassifierVersion('test');
  });
  afterEach(async () => {
    await one.close();
    await two.close();
    await second.close();
    await first.close();
    await clickhouse?.drop();
    clickhouse = undefined;
  });

  /** The rows (visitor = claim row) stored at `at` that came out spoofed, wherever the hits are kept. */
  const spoofed = async (at: number): Promise<Set<number>> => {
    if (clickhouse === undefined) return spoofedRows(one, at);
    // Each store spools what it accepted: both write it into ClickHouse before it is read there.
    for (const store of [one, two]) if (store instanceof ClickHouseAnalyticsStore) await store.flush();
    const config = { analytics: { clickhouse: clickhouse.settings } } as Config;
    const rows = await clickhouseRows<{ visitor: string }>(
      config,
      `SELECT visitor FROM analytics_hits WHERE at = ${at} AND verification = ${VERIFICATION_CODES.spoofed}`,
    );
    return new Set(rows.map((row) => Number(row.visitor)));
  };

  // A label's key is the same whatever the claim's expiry, so an expired row can be claimed again under it.
  const claim = (row: number, label: string, owner = '', expiresAt = SECONDS + 60): NonceClaim => ({
    row,
    key: testLedgerKey(label, SECONDS + 60),
    expiresAt,
    owner,
  });
  /** Stores the claims' batch at NOW + `tag` ms; returns the rows that came out spoofed. */
  const store = async (target: AnalyticsStore, tag: number, claims: NonceClaim[]) => {
    await target.insertHits(claimedBatch(site, version, NOW + tag, claims));
    return spoofed(NOW + tag);
  };

  it('lets exactly one of two processes storing the same nonces at once win', async () => {
    const keys = Array.from({ length: 50 }, (_, index) => `k${index}`);
    // Reversed in one of them: the claims still lock in one order (no deadlock on PostgreSQL).
    await Promise.all([
      one.insertHits(
        claimedBatch(
          site,
          version,
          NOW + 1,
          keys.map((key, row) => claim(row, key)),
        ),
      ),
      two.insertHits(claimedBatch(site, version, NOW + 2, keys.map((key, row) => claim(row, key)).reverse())),
    ]);
    const [spoofedA, spoofedB] = [await spoofed(NOW + 1), await spoofed(NOW + 2)];
    for (let row = 0; row < keys.length; row++) expect(Number(spoofedA.has(row)) + Number(spoofedB.has(row))).toBe(1);
    expect(await claimedNonces(one)).toBe(50);
  });

  it('does not count the same event (same owner) as its own replay, but a repeat within one batch or without an event id is one', async () => {
    expect(await store(one, 1, [claim(0, 'retry', 'evt-1'), claim(1, 'bare')])).toEqual(new Set());
    expect(await store(two, 2, [claim(0, 'retry', 'evt-1'), claim(1, 'retry', 'evt-2'), claim(2, 'bare'), claim(3, 'new'), claim(4, 'new')])).toEqual(
      new Set([1, 2, 4]),
    );
  });

  it('takes over an expired nonce, and prunes expired rows', async () => {
    const clock = new ManualClock(NOW);
    expect(await store(one, 1, [claim(0, 'old', '', SECONDS - 1), claim(1, 'live')])).toEqual(new Set());
    expect(await store(one, 2, [claim(0, 'old'), claim(1, 'live')])).toEqual(new Set([1]));
    clock.advance(120_000);
    const ledger = new NonceLedger(first.database, clock);
    // Both live until SECONDS + 60 (the expired one was taken over): nothing to prune before then.
    expect(await ledger.prune(SECONDS + 60)).toBe(0);
    expect(await claimedNonces(one)).toBe(2);
    expect(await ledger.prune(SECONDS + 120)).toBe(2);
    expect(await ledger.prune(SECONDS + 120)).toBe(0);
  });

  // ClickHouse: nonce-claim-retry.test.ts fails its inserts through a fault proxy instead.
  it.runIf(backend !== 'clickhouse')('leaves no nonce claimed when storing the hits fails, so the retried batch is not a replay', async () => {
    const failure = await hitInsertFailure(first.database);
    await failure.set(true);
    await expect(one.insertHits(claimedBatch(site, version, NOW + 1, [claim(0, 'n1'), claim(1, 'n2')]))).rejects.toThrow();
    // With event ids the batch takes the other path (a transaction of several statements on PostgreSQL).
    await expect(one.insertHits(claimedBatch(site, version, NOW + 1, [claim(2, 'n4', 'evt-4')]))).rejects.toThrow();
    await failure.set(false);
    expect(await claimedNonces(one)).toBe(0);
    expect(await spoofed(NOW + 1)).toEqual(new Set());
    // The retry (another process, no event ids) keeps both as verified; a replay later is still caught.
    expect(await store(two, 2, [claim(0, 'n1'), claim(1, 'n2'), claim(2, 'n4', 'evt-4')])).toEqual(new Set());
    expect(await store(one, 3, [claim(0, 'n2'), claim(1, 'n3')])).toEqual(new Set([0]));
    expect(await claimedNonces(one)).toBe(4);
  });

  it.runIf(backend === 'postgres')('leaves no nonce claimed when the connection is lost inside the batch’s transaction', async () => {
    const raw = first.database.raw;
    if (raw.dialect !== 'postgres') return;
    let armed = true;
    // The connection cut before the hit rows are sent: the server rolls the transaction (and its claim) back.
    injectConnectionFaults(raw.pool, (statement) => {
      if (!armed || !/insert into analytics_hits/i.test(statement)) return undefined;
      armed = false;
      return 'before';
    });
    await expect(one.insertHits(claimedBatch(site, version, NOW + 1, [claim(0, 'n1', 'evt-1'), claim(1, 'n2')]))).rejects.toThrow();
    expect(await claimedNonces(one)).toBe(0);
    expect(await store(two, 2, [claim(0, 'n1', 'evt-1'), claim(1, 'n2')])).toEqual(new Set());
  });
});

describe('ledger keys', () => {
  it('sort by expiry first, so claims write the unique index in time order; a replay repeats its key', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 2 ** 40 - 1 }), fc.uint8Array({ minLength: 32, maxLength: 32 })), { minLength: 2, maxLength: 50 }),
        (claims) => {
          const keyed = claims.map(([expiresAt, digest]) => ({ expiresAt, key: ledgerKey(expiresAt, Buffer.from(digest)) }));
          const byKey = [...keyed].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
          for (let index = 1; index < byKey.length; index++) expect(byKey[index]!.expiresAt).toBeGreaterThanOrEqual(byKey[index - 1]!.expiresAt);
          const [expiresAt, digest] = claims[0]!;
          expect(ledgerKey(expiresAt, Buffer.from(digest))).toBe(keyed[0]!.key);
          expect(keyed[0]!.key).toMatch(/^[0-9a-f]{42}$/);
        },
      ),
    );
  });

  it('fall below the bound of a second exactly when they expire before it (the SQLite prune deletes that range)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 2 ** 40 - 1 }),
        fc.integer({ min: 0, max: 2 ** 40 - 1 }),
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        (expiresAt, now, digest) => {
          expect(ledgerKey(expiresAt, Buffer.from(digest)) < ledgerKeyBound(now)).toBe(expiresAt < now);
        },
      ),
    );
  });
});
