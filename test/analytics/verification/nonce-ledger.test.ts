import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import type { Database } from '../../../src/db/database.js';
import { openPostgresDatabase } from '../../../src/db/postgres-database.js';
import { openSqliteDatabase } from '../../../src/db/sqlite-database.js';
import { NonceLedger, type NonceClaim } from '../../../src/analytics/verification/nonce-ledger.js';
import { BACKENDS, openTestDatabase, type TestDatabase } from '../../helpers/test-database.js';

const NOW = Date.UTC(2026, 10, 24, 12);
const SECONDS = NOW / 1000;

describe.each(BACKENDS)('NonceLedger: the nonce table shared by server processes [%s]', (dialect) => {
  let first: TestDatabase;
  let second: Database;
  let clock: ManualClock;
  beforeEach(async () => {
    first = await openTestDatabase(dialect);
    // Another connection (pool) to the same database: another server process.
    second = dialect === 'postgres' ? openPostgresDatabase(first.location, { maxConnections: 5 }) : openSqliteDatabase(first.location);
    clock = new ManualClock(NOW);
  });
  afterEach(async () => {
    await second.close();
    await first.close();
  });

  const claim = (row: number, key: string, owner = '', expiresAt = SECONDS + 60): NonceClaim => ({ row, key, expiresAt, owner });

  it('lets exactly one of two processes claiming the same nonce at once win', async () => {
    const a = new NonceLedger(first.database, clock);
    const b = new NonceLedger(second, clock);
    const keys = Array.from({ length: 50 }, (_, index) => `k${index}`);
    const [replaysA, replaysB] = await Promise.all([a.claim(keys.map((key, row) => claim(row, key))), b.claim(keys.map((key, row) => claim(row, key)))]);
    // Every nonce is a replay in exactly one of the two batches.
    for (let row = 0; row < keys.length; row++) expect(Number(replaysA.has(row)) + Number(replaysB.has(row))).toBe(1);
  });

  it('does not count the same event (same owner) as its own replay, but a repeat within one batch or without an event id is one', async () => {
    const a = new NonceLedger(first.database, clock);
    const b = new NonceLedger(second, clock);
    expect(await a.claim([claim(0, 'retry', 'evt-1'), claim(1, 'bare')])).toEqual(new Set());
    expect(await b.claim([claim(0, 'retry', 'evt-1'), claim(1, 'retry', 'evt-2'), claim(2, 'bare'), claim(3, 'new'), claim(4, 'new')])).toEqual(
      new Set([1, 2, 4]),
    );
  });

  it('takes over an expired nonce, and prunes expired rows', async () => {
    const a = new NonceLedger(first.database, clock);
    expect(await a.claim([claim(0, 'old', '', SECONDS - 1), claim(1, 'live')])).toEqual(new Set());
    expect(await a.claim([claim(0, 'old'), claim(1, 'live')])).toEqual(new Set([1]));
    clock.advance(120_000);
    expect(await a.prune(SECONDS + 120)).toBe(2);
    expect(await a.prune(SECONDS + 120)).toBe(0);
  });
});
