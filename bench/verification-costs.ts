/**
 * Pieces of the verification suite (bench/verification-suite.ts): how the alternating
 * on/off rounds are summarized, and the costs measured on their own — the Ed25519 check
 * alone and the deployment-wide nonce claim of a batch.
 */
import { randomBytes, sign } from 'node:crypto';
import { sql } from 'kysely';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { importEd25519 } from '../src/analytics/verification/ed25519-jwk.js';
import { ED25519_BACKEND, verifyEd25519, type Ed25519Backend } from '../src/analytics/verification/ed25519-verify.js';
import type { HitBatch } from '../src/analytics/analytics-store.js';
import { SqliteAnalyticsStore } from '../src/analytics/sqlite-analytics-store.js';
import type { NonceClaim } from '../src/analytics/verification/nonce-ledger.js';
import { migrate } from '../src/db/migrator.js';
import { openDatabase } from '../src/db/open-database.js';
import type { TestSigner } from '../test/fakes/web-bot-auth-signer.js';
import { percentile } from './lib/percentiles.js';

/** Timed rounds per comparison (one more runs first, as a warm-up, and is thrown away). */
export const ROUNDS = 6;

export interface Comparison {
  /** Median hits per CPU-second with verification off and on. */
  off: number;
  on: number;
  /** Each round's on ÷ off: its median, and the lowest and highest. */
  ratio: { median: number; low: number; high: number };
  /** Median of each round's extra CPU per hit with verification on, in µs. */
  extraMicrosPerHit: number;
}

/** Both sides of one round: each runs its batches and answers hits per CPU-second. */
export interface PairedRound {
  off: () => Promise<number>;
  on: () => Promise<number>;
}

/**
 * ROUNDS + 1 rounds, the first (index 0) a warm-up thrown away; each runs off and on back to
 * back, which first alternating, so load drift moves both sides of a round alike. `round`
 * prepares round `index` (fresh batches: nonces are single-use).
 */
export async function pairedRounds(round: (index: number) => PairedRound | Promise<PairedRound>): Promise<Comparison> {
  const rounds: Array<{ off: number; on: number }> = [];
  for (let index = 0; index < ROUNDS + 1; index++) {
    const { off, on } = await round(index);
    const offFirst = index % 2 === 0;
    const first = await (offFirst ? off : on)();
    const second = await (offFirst ? on : off)();
    if (index > 0) rounds.push(offFirst ? { off: first, on: second } : { off: second, on: first });
  }
  return summarizeRounds(rounds);
}

/** Medians of rounds that each ran off and on back to back. */
export function summarizeRounds(rounds: ReadonlyArray<{ off: number; on: number }>): Comparison {
  const ratios = rounds.map((round) => round.on / round.off);
  return {
    off: percentile(
      rounds.map((round) => round.off),
      50,
    ),
    on: percentile(
      rounds.map((round) => round.on),
      50,
    ),
    ratio: { median: percentile(ratios, 50), low: Math.min(...ratios), high: Math.max(...ratios) },
    extraMicrosPerHit: percentile(
      rounds.map((round) => 1e6 / round.on - 1e6 / round.off),
      50,
    ),
  };
}

function cpuMicroseconds(): number {
  const usage = process.cpuUsage();
  return usage.user + usage.system;
}

/** One Ed25519 verification alone (verifyEd25519 with `backend`, a cached KeyObject, distinct messages), in µs of CPU. */
export function ed25519Cost(signer: TestSigner, count: number, backend: Ed25519Backend = ED25519_BACKEND): number {
  const key = importEd25519(signer.jwk);
  const messages = Array.from({ length: count }, (_, index) =>
    Buffer.from(`"@authority": docs.example.com\n"@signature-params": ("@authority");nonce="${index}"`),
  );
  const signatures = messages.map((message) => sign(null, message, signer.privateKey));
  const started = cpuMicroseconds();
  let valid = 0;
  for (let index = 0; index < count; index++) if (verifyEd25519(messages[index]!, key, signatures[index]!, backend)) valid++;
  const micros = (cpuMicroseconds() - started) / count;
  if (valid !== count) throw new Error(`only ${valid} of ${count} Ed25519 signatures verified`);
  return micros;
}

/**
 * The deployment-wide nonce claim (nonce-ledger.ts, SQLite) of a batch carrying ten signed
 * nonces, as at 1% signed, in µs of CPU: what storing a 10-hit batch costs with its ten
 * claims over the same batch without, the claim running inside the batch's own insert
 * transaction (no commit of its own); and, for comparison, the same claim in a transaction
 * of its own before the batch, as it was made until issue 14's change. The three alternate;
 * the figures are medians of the rounds.
 */
export async function nonceClaimCost(scratch: string, batches = 600): Promise<{ inInsert: number; ownTransaction: number }> {
  const now = Date.UTC(2026, 10, 24, 12);
  const dataDir = join(scratch, 'nonces');
  mkdirSync(dataDir, { recursive: true });
  const database = openDatabase({ databaseUrl: undefined, dataDir });
  try {
    await migrate(database, { now: () => now });
    await sql`insert into projects (id, name, repository, ref, forge, created_at, updated_at) values ('bench', 'Bench', '/srv/docs', 'main', 'local', 1, 1)`.execute(
      database.db,
    );
    const store = new SqliteAnalyticsStore(database);
    const site = await store.ensureSite('bench');
    const classifierVersion = await store.ensureClassifierVersion('bench');
    const batch = (signed: boolean): HitBatch => {
      const claims: NonceClaim[] = Array.from({ length: 10 }, (_, row) => ({
        row,
        key: randomBytes(16).toString('hex'),
        expiresAt: now / 1000 + 60,
        owner: '',
      }));
      return {
        site,
        count: 10,
        classifierVersion,
        at: new Float64Array(10).fill(now),
        page: new Int32Array(10).fill(1),
        visitor: BigInt64Array.from({ length: 10 }, (_, row) => BigInt(row)),
        classCode: new Uint8Array(10),
        agent: new Int32Array(10),
        userAgent: new Int32Array(10),
        referrer: Array<string | null>(10).fill(null),
        markdownAccept: new Uint8Array(10),
        eventId: Array<string | null>(10).fill(null),
        category: new Uint8Array(10),
        verification: new Uint8Array(10),
        readKind: new Uint8Array(10),
        status: new Uint16Array(10),
        referral: new Int32Array(10),
        ...(signed ? { nonces: { claims, nowSeconds: now / 1000, spoofedAgent: new Int32Array(10) } } : {}),
      };
    };
    for (let index = 0; index < 50; index++) await store.insertHits(batch(index % 2 === 0));
    // Each round: the batch with its claims; the claims in a transaction of their own, then the batch without (the way before); the batch alone.
    const rounds = Array.from({ length: batches }, () => [batch(true), batch(true), batch(false), batch(false)] as const);
    const inInsert: number[] = [];
    const ownTransaction: number[] = [];
    for (const [signed, separate, unsignedAfter, unsigned] of rounds) {
      let started = cpuMicroseconds();
      await store.insertHits(signed);
      const withClaims = cpuMicroseconds() - started;
      started = cpuMicroseconds();
      await store.claimAround(separate.nonces!, () => Promise.resolve());
      await store.insertHits(unsignedAfter);
      const separately = cpuMicroseconds() - started;
      started = cpuMicroseconds();
      await store.insertHits(unsigned);
      const without = cpuMicroseconds() - started;
      inInsert.push(withClaims - without);
      ownTransaction.push(separately - without);
    }
    await store.close();
    // Medians: a WAL checkpoint lands on whichever commit crosses its threshold, a spike of
    // a few ms in one round; the claim writes the same pages either way.
    return { inInsert: percentile(inInsert, 50), ownTransaction: percentile(ownTransaction, 50) };
  } finally {
    await database.close();
  }
}
