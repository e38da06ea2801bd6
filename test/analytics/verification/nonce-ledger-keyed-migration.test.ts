import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { sqlAnalyticsStore } from '../../../src/analytics/sql-analytics-store.js';
import { NonceLedger, type NonceClaim } from '../../../src/analytics/verification/nonce-ledger.js';
import { ManualClock, systemClock } from '../../../src/core/clock.js';
import { migrate } from '../../../src/db/migrator.js';
import { claimedBatch, claimedNonces, spoofedRows, testLedgerKey } from '../../helpers/nonce-batches.js';
import { BACKENDS, migrateBefore, openTestDatabase } from '../../helpers/test-database.js';

const NOW = Date.UTC(2026, 10, 24, 12);
const SECONDS = NOW / 1000;
const LIVE = SECONDS + 60;

const digest = (label: string): Buffer => createHash('sha256').update(label).digest();
/** The key a claim had before the time-ordered ledger key: 128 bits of the digest alone. */
const hashOnly = (label: string): string => digest(label).toString('hex', 0, 16);

/** The nonce-ledger-keyed migration: claims made under the hash-only key are found by the ledger key after it. */
describe.each(BACKENDS)('the nonce table after the nonce-ledger-keyed migration [%s]', (dialect) => {
  it('gives hash-only claims their expiry in front, so a replay spanning the upgrade is caught, and prunes them by key', async () => {
    const t = await openTestDatabase(dialect, { migrate: false });
    try {
      await migrateBefore(t.database, 'nonce-ledger-keyed');
      const db = t.database.db;
      // 'twice' was claimed under both keys (a replay the upgrade let through): one row is kept for it.
      await sql`insert into analytics_signature_nonces (nonce, expires_at, owner) values
        (${hashOnly('live')}, ${LIVE}, ''), (${hashOnly('owned')}, ${LIVE}, 'evt'), (${hashOnly('gone')}, ${SECONDS - 1}, ''),
        (${testLedgerKey('new', LIVE)}, ${LIVE}, ''), (${hashOnly('twice')}, ${LIVE}, 'first'), (${testLedgerKey('twice', LIVE)}, ${LIVE}, 'second')`.execute(
        db,
      );
      await migrate(t.database, systemClock);

      const rows = await sql<{ nonce: string; owner: string }>`select nonce, owner from analytics_signature_nonces`.execute(db);
      const byKey = new Map(rows.rows.map((row) => [row.nonce, row.owner]));
      expect(byKey.get(testLedgerKey('live', LIVE))).toBe('');
      expect(byKey.get(testLedgerKey('owned', LIVE))).toBe('evt');
      expect(byKey.get(testLedgerKey('gone', SECONDS - 1))).toBe('');
      expect(byKey.get(testLedgerKey('twice', LIVE))).toBe('second');
      // SQLite keeps one row per nonce; PostgreSQL leaves the old row of 'twice' to expire.
      expect([...byKey.keys()].filter((key) => key.length === 32)).toEqual(dialect === 'sqlite' ? [] : [hashOnly('twice')]);

      await sql`insert into projects (id, name, repository, forge, created_at, updated_at) values ('p', 'Docs', '/docs', 'local', ${NOW}, ${NOW})`.execute(db);
      const store = sqlAnalyticsStore(t.database);
      try {
        const site = await store.ensureSite('p');
        const version = await store.ensureClassifierVersion('test');
        const claim = (row: number, label: string, owner = ''): NonceClaim => ({ row, key: testLedgerKey(label, LIVE), expiresAt: LIVE, owner });
        await store.insertHits(claimedBatch(site, version, NOW, [claim(0, 'live'), claim(1, 'owned', 'evt'), claim(2, 'fresh')]));
        // A replay of a claim made before the upgrade; the same event retried is not one.
        expect(await spoofedRows(store, NOW)).toEqual(new Set([0]));
        const ledger = new NonceLedger(t.database, new ManualClock(NOW));
        expect(await ledger.prune(SECONDS)).toBe(1);
        const live = dialect === 'sqlite' ? 5 : 6;
        expect(await claimedNonces(store)).toBe(live);
        expect(await ledger.prune(LIVE + 1)).toBe(live);
      } finally {
        await store.close();
      }
      if (dialect === 'sqlite') {
        // One b-tree: the table keyed by the key, no expiry index.
        const schema = await sql<{
          type: string;
          name: string;
          sql: string | null;
        }>`select type, name, sql from sqlite_master where tbl_name = 'analytics_signature_nonces'`.execute(db);
        expect(schema.rows.map((row) => row.type)).toEqual(['table']);
        expect(schema.rows[0]!.sql).toMatch(/without rowid/i);
      }
    } finally {
      await t.close();
    }
  });
});
