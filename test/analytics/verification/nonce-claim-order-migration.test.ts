import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { sqlAnalyticsStore } from '../../../src/analytics/sql-analytics-store.js';
import { NonceLedger, type NonceClaim } from '../../../src/analytics/verification/nonce-ledger.js';
import { ManualClock, systemClock } from '../../../src/core/clock.js';
import { migrate } from '../../../src/db/migrator.js';
import { claimedBatch, spoofedRows, testLedgerKey } from '../../helpers/nonce-batches.js';
import { BACKENDS, migrateBefore, openTestDatabase } from '../../helpers/test-database.js';

const NOW = Date.UTC(2026, 10, 24, 12);
const SECONDS = NOW / 1000;

/** The nonce-claim-order migration: the nonces claimed before it keep their replay protection after it. */
describe.each(BACKENDS)('the nonce table after the nonce-claim-order migration [%s]', (dialect) => {
  it('keeps every claimed nonce: a live one is still a replay, an expired one is taken over, and the prune still finds expired rows', async () => {
    const t = await openTestDatabase(dialect, { migrate: false });
    try {
      await migrateBefore(t.database, 'nonce-claim-order');
      const db = t.database.db;
      // Ledger keys (the later migrations keep them as they are); one per label, whatever the expiry.
      const key = (label: string): string => testLedgerKey(label, SECONDS + 60);
      await sql`insert into analytics_signature_nonces (nonce, expires_at, owner) values
        (${key('live')}, ${SECONDS + 60}, ''), (${key('owned')}, ${SECONDS + 60}, 'evt'), (${key('old')}, ${SECONDS - 1}, '')`.execute(db);
      await migrate(t.database, systemClock);

      await sql`insert into projects (id, name, repository, forge, created_at, updated_at) values ('p', 'Docs', '/docs', 'local', ${NOW}, ${NOW})`.execute(db);
      const store = sqlAnalyticsStore(t.database);
      try {
        const site = await store.ensureSite('p');
        const version = await store.ensureClassifierVersion('test');
        const claim = (row: number, label: string, owner = ''): NonceClaim => ({ row, key: key(label), expiresAt: SECONDS + 60, owner });
        await store.insertHits(
          claimedBatch(site, version, NOW, [claim(0, 'live'), claim(1, 'owned', 'evt'), claim(2, 'old'), claim(3, 'new'), claim(4, 'live')]),
        );
        // 'live' was claimed before the migration (and again within the batch); 'owned' is the same event retried.
        expect(await spoofedRows(store, NOW)).toEqual(new Set([0, 4]));
        const rows = await store.select<{ nonce: string; expires_at: number | string }>(
          'select nonce, expires_at from analytics_signature_nonces order by nonce',
          [],
        );
        expect(rows.map((row) => [row.nonce, Number(row.expires_at)])).toEqual(
          ['live', 'new', 'old', 'owned'].map((label) => [key(label), SECONDS + 60]).sort((a, b) => (a[0]! < b[0]! ? -1 : 1)),
        );
        expect(await new NonceLedger(t.database, new ManualClock(NOW)).prune(SECONDS + 61)).toBe(4);
      } finally {
        await store.close();
      }
    } finally {
      await t.close();
    }
  });
});
