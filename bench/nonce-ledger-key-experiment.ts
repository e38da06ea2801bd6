/**
 * What the deployment-wide nonce ledger's key order costs SQLite, alone:
 *   node --import tsx bench/nonce-ledger-key-experiment.ts [--batches N]
 * Each batch is one write transaction of 1,000 hit-sized rows, as the store's insert, with
 * ten nonce claims (1% of hits signed) or none, on the table of the nonce-claim-order
 * migration. Keys are 128 random bits in hex (the digest alone, as before) or the same after
 * the expiry in hex (ledgerKey, time-ordered); `keyed` is the time-ordered key as the primary
 * key of a WITHOUT ROWID table with no expiry index. Prints CPU per batch for each, three rounds
 * alternating; about 60,000 live claims, as in the verification suite's run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import BetterSqlite3 from 'better-sqlite3';
import { ledgerKey } from '../src/analytics/verification/ledger-key.js';

type Mode = 'none' | 'random' | 'ordered' | 'keyed';
const { values } = parseArgs({ options: { batches: { type: 'string', default: '4000' } } });
const batches = Number(values.batches);
const scratch = mkdtempSync(join(tmpdir(), 'docwright-nonce-key-'));

function measure(mode: Mode): number {
  const db = new BetterSqlite3(join(scratch, `${mode}-${Date.now()}.sqlite`));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  // keyed: one b-tree, the time-ordered key itself (WITHOUT ROWID), and no expiry index (expired rows are a key range).
  db.exec(`${
    mode === 'keyed'
      ? 'create table analytics_signature_nonces (nonce text primary key, expires_at bigint not null, owner text not null) without rowid;'
      : `create table analytics_signature_nonces (seq integer primary key, nonce text not null, expires_at bigint not null, owner text not null);
    create unique index analytics_signature_nonces_nonce on analytics_signature_nonces (nonce);
    create index analytics_signature_nonces_expiry on analytics_signature_nonces (expires_at);`
  }
    create table hits (seq integer primary key, site int, at int, page int, visitor int, class int, agent int, user_agent int, referrer text)`);
  const upsert = db.prepare(`insert into analytics_signature_nonces as n (nonce, expires_at, owner) values (?, ?, ?)
    on conflict (nonce) do update set expires_at = excluded.expires_at, owner = excluded.owner where n.expires_at < ?`);
  const hit = db.prepare('insert into hits (site, at, page, visitor, class, agent, user_agent, referrer) values (?, ?, ?, ?, ?, ?, ?, ?)');
  let now = 1_800_000_000;
  const run = (count: number): number => {
    const start = process.cpuUsage();
    for (let batch = 0; batch < count; batch++) {
      if (batch % 100 === 0) now += 1;
      db.exec('begin immediate');
      for (let row = 0; row < 1000; row++) hit.run(1, now, row, row * 7, 1, 0, 3, null);
      for (let claim = 0; claim < (mode === 'none' ? 0 : 10); claim++) {
        const expiresAt = now + 60 + (claim % 3) * 240;
        const digest = randomBytes(16);
        upsert.run(mode === 'ordered' || mode === 'keyed' ? ledgerKey(expiresAt, digest) : digest.toString('hex'), expiresAt, '', now);
      }
      db.exec('commit');
    }
    const used = process.cpuUsage(start);
    return (used.user + used.system) / count;
  };
  run(2_000);
  const perBatch = run(batches);
  db.close();
  return perBatch;
}

try {
  for (let round = 1; round <= 3; round++) {
    const figures = (['none', 'random', 'ordered', 'keyed'] as const).map((mode) => `${mode} ${measure(mode).toFixed(0)} µs`);
    console.log(`round ${round}: CPU per 1,000-hit batch: ${figures.join(', ')}`);
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
