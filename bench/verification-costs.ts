/**
 * Pieces of the verification suite (bench/verification-suite.ts): how the alternating
 * on/off rounds are summarized, and the costs measured on their own — the Ed25519 check
 * alone and the deployment-wide nonce claim of a batch.
 */
import { randomBytes, sign } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { importEd25519 } from '../src/analytics/verification/ed25519-jwk.js';
import { ED25519_BACKEND, verifyEd25519, type Ed25519Backend } from '../src/analytics/verification/ed25519-verify.js';
import { NonceLedger, type NonceClaim } from '../src/analytics/verification/nonce-ledger.js';
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
 * The deployment-wide nonce claim (NonceLedger, SQLite) of a batch carrying ten signed
 * nonces, as at 1% signed, in µs of CPU: one statement, in its own transaction today.
 */
export async function nonceClaimCost(scratch: string, batches = 600): Promise<number> {
  const now = Date.UTC(2026, 10, 24, 12);
  const dataDir = join(scratch, 'nonces');
  mkdirSync(dataDir, { recursive: true });
  const database = openDatabase({ databaseUrl: undefined, dataDir });
  try {
    await migrate(database, { now: () => now });
    const ledger = new NonceLedger(database, { now: () => now });
    const claims = (): NonceClaim[] =>
      Array.from({ length: 10 }, (_, row) => ({ row, key: randomBytes(16).toString('hex'), expiresAt: now / 1000 + 60, owner: '' }));
    for (let index = 0; index < 50; index++) await ledger.claim(claims());
    const prepared = Array.from({ length: batches }, claims);
    const started = cpuMicroseconds();
    for (const batch of prepared) await ledger.claim(batch);
    const micros = (cpuMicroseconds() - started) / batches;
    await ledger.settled();
    return micros;
  } finally {
    await database.close();
  }
}
