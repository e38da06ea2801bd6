/**
 * Agent verification's cost (issue 14): ingest with verification on and off in the same
 * run (paired rounds, medians), one Web Bot Auth signature verification, its Ed25519 check
 * alone, the nonce claim of a batch, and one range lookup.
 *   npm run bench -- verification [--scale N]
 * Verification runs in the preparation stage (ingest worker or inline), synchronously,
 * next to validation, classification and visitor hashing; a batch carrying signed nonces
 * then claims them in the shared nonce table in the transaction that stores its rows. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AnalyticsService } from '../src/analytics/analytics-service.js';
import { migrate } from '../src/db/migrator.js';
import { openDatabase } from '../src/db/open-database.js';
import { SecretBox } from '../src/core/secret-box.js';
import { ProjectRepository } from '../src/projects/project-repository.js';
import { prepareBatch, type BatchContext } from '../src/analytics/prepare-batch.js';
import { VisitorIdentity } from '../src/analytics/visitor-identity.js';
import { EvidenceVerifier } from '../src/analytics/verification/evidence-verifier.js';
import { claimOnlyVerifier, type HitVerifier } from '../src/analytics/verification/hit-verifier.js';
import { parseAddress } from '../src/analytics/verification/ip-address.js';
import { buildRangeTable, tableContains } from '../src/analytics/verification/ip-range-set.js';
import { snapshotKeyLookup } from '../src/analytics/verification/key-directory-cache.js';
import { NonceRegistry } from '../src/analytics/verification/nonce-registry.js';
import { buildRangeCatalog } from '../src/analytics/verification/range-catalog.js';
import { verifyWebBotAuth } from '../src/analytics/verification/web-bot-auth.js';
import { FIXTURE_RANGES } from '../test/fixtures/agent-ranges.js';
import { TestSigner } from '../test/fakes/web-bot-auth-signer.js';
import type { BenchOptions } from './lib/bench-options.js';
import { createSeededRandom } from './lib/seeded-random.js';
import { BATCH_STEP_MS, makeBatches } from './verification-batches.js';
import { verificationOverHttp } from './verification-http.js';
import { metric, type BenchMetric, type SuiteReport } from './lib/suite-report.js';
import { ED25519_BACKEND } from '../src/analytics/verification/ed25519-verify.js';
import { ROUNDS, ed25519Cost, nonceClaimCost, pairedRounds, type Comparison } from './verification-costs.js';

const NOW = Date.UTC(2026, 10, 24, 12);
const SECRET = 'bench-secret-bench-secret-bench-secret-0123';
const AGENT_URL = 'https://chatgpt.com';
/** The bench project's site: the signed @authority is compared with it. */
const SITE = ['docs.example.com'];
/** Longer than any run of the suite (and within setTimeout's range): the fold runs only when asked. */
const FOLD_TIMERS_OFF_MS = 2 ** 31 - 1;

/**
 * CPU time of this process, in milliseconds: on a shared, busy machine it moves far less
 * than wall-clock time, and ingest here is one thread (better-sqlite3 writes synchronously).
 */
function cpuMilliseconds(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1000;
}

/** A verification-on rate against the off rate of the same run (medians of paired rounds); `targeted`: within 15%. */
function onOff(name: string, compared: Comparison, targeted: boolean, note?: string): BenchMetric {
  const { ratio } = compared;
  const spread = `per-round on ÷ off ${ratio.median.toFixed(2)}× (${ratio.low.toFixed(2)}–${ratio.high.toFixed(2)}), +${compared.extraMicrosPerHit.toFixed(2)} µs CPU per hit`;
  return metric({
    name,
    value: compared.on,
    unit: 'hits/s',
    baseline: { name: 'verification off', value: compared.off },
    ...(targeted ? { target: { of: 'ratio' as const, comparison: 'at-least' as const, limit: 0.85 } } : {}),
    note: note === undefined ? spread : `${spread}; ${note}`,
  });
}

export async function runVerificationBenchmarks(options: BenchOptions): Promise<SuiteReport> {
  const signer = new TestSigner();
  const batchSize = 1_000;
  const batchCount = Math.max(4, Math.round(60 * options.scale));
  /** The simulated instant: the batch being ingested is the one at `now`. */
  let now = NOW;
  const clock = { now: () => now };
  /** Where the next run's first batch starts; every run gets fresh instants. */
  let cursor = NOW;
  const contextAt = (at: number): BatchContext => ({
    projectId: 'prj_bench',
    rotateDaily: false,
    authorities: SITE,
    window: { receivedAt: at, latest: at + 300_000, earliest: at - 86_400_000 * 30 },
  });
  const identity = new VisitorIdentity(SECRET);
  const evidence = () => ({
    ranges: buildRangeCatalog(FIXTURE_RANGES),
    keys: snapshotKeyLookup([{ agentUrl: AGENT_URL, state: 'ready', keys: [{ keyId: signer.keyId, x: signer.jwk.x }] }]),
    rdnsVerdict: () => undefined,
    nonces: new NonceRegistry(),
    clock,
  });
  const hits = batchCount * batchSize;
  const scratch = mkdtempSync(join(tmpdir(), 'docwright-bench-verification-'));
  const database = openDatabase({ databaseUrl: undefined, dataDir: scratch });
  await migrate(database, { now: () => NOW });
  const projects = new ProjectRepository(database.db, { now: () => NOW }, new SecretBox(SECRET));
  const project = await projects.create({ name: 'Verification bench', repository: scratch, ref: 'main', forge: 'local', settings: {} });
  // One service for both modes: its verifier is the claim-only one (off) or a fresh
  // EvidenceVerifier (on) per run, so `on` pays for the whole pipeline: claim from a
  // signature, verdict, applyVerification, and the deployment-wide nonce claim.
  let current: HitVerifier = claimOnlyVerifier;
  // Signed hits the "on" side checked, and how many it found verified: a signature the
  // simulated clock put outside its window would skip its Ed25519 check and make "on" cheap.
  const signed = { checked: 0, verified: 0 };
  // Everything the pipeline reads of a verifier is passed through, so `on` also pays for
  // each non-human hit's stored address block and evidence, as the service does.
  const switching: HitVerifier = {
    verify: (input) => {
      const verdict = current.verify(input);
      if (input.signature != null && current !== claimOnlyVerifier) {
        signed.checked++;
        if (verdict === 'verified') signed.verified++;
      }
      return verdict;
    },
    get lastEvidence() {
      return current.lastEvidence;
    },
    get rangesVersion() {
      return current.rangesVersion;
    },
    storedAddress: (ip) => current.storedAddress?.(ip) ?? null,
  };
  const analytics = new AnalyticsService({
    database,
    clock,
    secret: SECRET,
    retentionDays: 400,
    projectSettings: () => Promise.resolve({ siteHosts: SITE }),
    ingestWorkers: 0,
    verifier: { verifier: switching },
    // The rollup fold (the same work for both sides) runs between the measured windows, not
    // on its own timers: a background fold landing inside one side's window put up to
    // seconds of CPU into it at random (as the HTTP comparison found on 2026-11-29).
    fold: { idleMs: FOLD_TIMERS_OFF_MS, maxDelayMs: FOLD_TIMERS_OFF_MS },
  });

  /**
   * Off and on alternate on fresh batches (nonces are single-use), seven rounds, the first
   * thrown away; which side goes first alternates too (the database grows as rounds go
   * by). Each round's on ÷ off pairs two runs a few hundred milliseconds apart, so load
   * drift on the shared machine moves both sides alike; the figures are the medians.
   * `ingest` runs the service's ingest on event objects (SQLite); `body` the events
   * endpoint's path without HTTP (the request body's JSON parsed, then the same); `prepare`
   * only the preparation stage (prepareBatch).
   */
  const compare = (signedShare: number, mode: 'prepare' | 'ingest' | 'body'): Promise<Comparison> =>
    pairedRounds(() => {
      const timed = (): { start: number; batches: unknown[][] } => {
        const start = cursor;
        cursor += batchCount * BATCH_STEP_MS;
        return { start, batches: makeBatches(batchCount, batchSize, signer, signedShare, AGENT_URL, start, BATCH_STEP_MS) };
      };
      const offRun = timed();
      const onRun = timed();
      const offBatches = offRun.batches;
      const onBatches = onRun.batches;
      const bodies = (batches: unknown[][]): Uint8Array[] => (mode === 'body' ? batches.map((events) => Buffer.from(JSON.stringify({ events }))) : []);
      const offBodies = bodies(offBatches);
      const onBodies = bodies(onBatches);
      const run = async (start: number, batches: unknown[][], encoded: Uint8Array[], verifier: HitVerifier): Promise<number> => {
        current = verifier;
        const started = cpuMilliseconds();
        for (let index = 0; index < batches.length; index++) {
          now = start + index * BATCH_STEP_MS;
          if (mode === 'body') await analytics.ingestBody(project.id, encoded[index]!, { receivedAt: now });
          else if (mode === 'ingest') await analytics.ingest(project.id, batches[index]!, { receivedAt: now });
          else prepareBatch(batches[index]!, contextAt(now), identity, switching);
        }
        const rate = (hits / (cpuMilliseconds() - started)) * 1000;
        if (mode !== 'prepare') await analytics.fold();
        return rate;
      };
      return {
        off: () => run(offRun.start, offBatches, offBodies, claimOnlyVerifier),
        on: () => run(onRun.start, onBatches, onBodies, new EvidenceVerifier(evidence())),
      };
    });
  options.log(`verification: ${batchCount} batches of ${batchSize} hits, ingest into SQLite`);
  const unsigned = await compare(0, 'ingest');
  const onePercent = await compare(0.05, 'ingest');
  const onePercentBodies = await compare(0.05, 'body');
  const allSigned = await compare(1, 'ingest');
  const prepareUnsigned = await compare(0, 'prepare');
  const prepareOnePercent = await compare(0.05, 'prepare');
  if (signed.verified < signed.checked) {
    throw new Error(`verification on found ${signed.verified} of ${signed.checked} signed hits verified: it did not check them all`);
  }
  options.log('verification: the events endpoint over HTTP, two server processes (on, off)');
  const overHttp = await verificationOverHttp({ signer, batches: batchCount, signedShare: 0.05 });
  if (overHttp.signedVerified < overHttp.signedSent) {
    throw new Error(`the verifying server stored ${overHttp.signedVerified} of ${overHttp.signedSent} signed hits as verified: it did not check them all`);
  }
  await analytics.close();
  const claimMicros = await nonceClaimCost(scratch);
  rmSync(scratch, { recursive: true, force: true });

  // One signature verification: parse, key lookup, window, Ed25519, nonce.
  const signatures = Array.from({ length: Math.max(2_000, Math.round(20_000 * options.scale)) }, (_, index) =>
    signer.headers({
      agentUrl: AGENT_URL,
      authority: 'docs.example.com',
      created: NOW / 1000 - 2,
      nonce: `s${index}`,
      form: index % 2 === 0 ? 'string' : 'dictionary',
    }),
  );
  const { keys, nonces } = evidence();
  const signatureStarted = cpuMilliseconds();
  let valid = 0;
  for (const headers of signatures) if (verifyWebBotAuth(headers, keys, NOW, nonces, { authorities: SITE }).result === 'valid') valid++;
  const signatureMicros = ((cpuMilliseconds() - signatureStarted) * 1000) / signatures.length;
  if (valid !== signatures.length) throw new Error(`only ${valid} of ${signatures.length} signatures verified`);
  const ed25519Micros = ed25519Cost(signer, signatures.length);
  const opensslMicros = ed25519Cost(signer, signatures.length, 'openssl');

  // One range lookup in a list the size of Google's and OpenAI's together (~2,000 blocks).
  const random = createSeededRandom(9);
  const cidrs = Array.from({ length: 2_000 }, (_, index) =>
    index % 4 === 0
      ? `2001:db8:${(index * 7).toString(16)}::/48`
      : `${1 + Math.floor(random() * 220)}.${Math.floor(random() * 256)}.${Math.floor(random() * 256)}.0/24`,
  );
  const { table } = buildRangeTable(cidrs);
  const lookups = Math.max(100_000, Math.round(2_000_000 * options.scale));
  const v4 = Array.from(
    { length: 1_024 },
    () => `${Math.floor(random() * 256)}.${Math.floor(random() * 256)}.${Math.floor(random() * 256)}.${Math.floor(random() * 256)}`,
  );
  const v6 = Array.from({ length: 1_024 }, (_, index) => `2001:db8:${(index * 7).toString(16)}::${index.toString(16)}`);
  const lookup = (addresses: string[]): number => {
    let found = 0;
    const started = cpuMilliseconds();
    for (let index = 0; index < lookups; index++) if (tableContains(table, parseAddress(addresses[index & 1023]!)!)) found++;
    return found >= 0 ? ((cpuMilliseconds() - started) * 1e6) / lookups : 0;
  };
  const v4Nanos = lookup(v4);
  const v6Nanos = lookup(v6);

  return {
    suite: 'verification',
    title: 'Agent verification (Web Bot Auth, published ranges, reverse DNS)',
    context: [
      `${hits.toLocaleString('en-US')} hits per round in batches of ${batchSize}: 80% humans; the agents are GPTBot (half from outside its ranges: spoofed), Googlebot and signed ChatGPT-User hits (none, 1% of all hits, or every agent hit; each signature with a fresh nonce)`,
      'over HTTP = the deployed path: 4 keep-alive clients POST 1,000 events each to /v1/analytics/{id}/events of a real server process (SQLite, its default ingest worker threads), one with DOCWRIGHT_AGENT_VERIFICATION=on and its key directory on loopback, one off; hits per CPU-second of each server process',
      'ingest = AnalyticsService.ingest of event objects into SQLite (inline preparation, no workers) with the verifier in its pipeline (claim from a signature, verdict, applyVerification, and the nonce claim in analytics_signature_nonces inside the insert transaction of the batch); request bodies = AnalyticsService.ingestBody, the events endpoint without HTTP (JSON parse, then the same); preparation stage = prepareBatch alone; off = the claim-only verifier',
      `each comparison: ${ROUNDS} timed rounds (after one warm-up), each running off and on back to back on fresh batches, which first alternating; figures are medians, in hits per CPU-second of the process`,
      `range table: ${cidrs.length.toLocaleString('en-US')} CIDR blocks (3/4 IPv4, 1/4 IPv6); lookup includes parsing the address text`,
    ],
    metrics: [
      onOff('ingest, verification on, agents by address only', unsigned, true),
      onOff('ingest, verification on, 1% of hits signed', onePercent, true),
      onOff('ingest of request bodies (events endpoint without HTTP), 1% of hits signed', onePercentBodies, true),
      onOff(
        'ingest over HTTP (events endpoint, a server process with its ingest workers), 1% of hits signed',
        overHttp,
        true,
        `per server CPU-second, worker threads included; ${overHttp.signedVerified.toLocaleString('en-US')} of ${overHttp.signedSent.toLocaleString('en-US')} signed hits stored as verified`,
      ),
      onOff(
        'ingest, verification on, every agent hit signed (20%)',
        allSigned,
        false,
        'worst case: every signature unique (fresh nonce), so each costs one Ed25519 check',
      ),
      onOff('preparation stage alone, agents by address only', prepareUnsigned, false),
      onOff('preparation stage alone, 1% of hits signed', prepareOnePercent, false),
      metric({ name: 'one signature verification', value: signatureMicros, unit: 'µs', note: 'parse, key lookup, window, Ed25519 verify, nonce record' }),
      metric({ name: `… of which the Ed25519 check (${ED25519_BACKEND}, as verification runs it)`, value: ed25519Micros, unit: 'µs' }),
      metric({ name: 'one Ed25519 check with node:crypto (OpenSSL one-shot verify, cached KeyObject), for comparison', value: opensslMicros, unit: 'µs' }),
      metric({
        name: 'nonce claim of a batch with 10 signed nonces (SQLite)',
        value: claimMicros.inInsert,
        unit: 'µs',
        note: 'extra CPU of storing a 10-hit batch with its 10 claims over the same batch without (median of 600 rounds): the claim inside the insert transaction, per batch carrying signed nonces',
      }),
      metric({
        name: '… the same claim in a transaction of its own (as before)',
        value: claimMicros.ownTransaction,
        unit: 'µs',
        note: 'its own begin and commit, then the batch without claims: the way until the claim moved into the insert transaction',
      }),
      metric({ name: 'one range lookup, IPv4', value: v4Nanos, unit: 'ns' }),
      metric({ name: 'one range lookup, IPv6', value: v6Nanos, unit: 'ns' }),
    ],
    notes: [
      'With verification on, a batch carrying signed nonces also makes one more database statement (the nonce claim) in the transaction that stores its rows; everything else verification does is in the preparation stage.',
      'Signed hits cost most: one Ed25519 verification each (a nonce-less signature repeated within its window is checked once); unsigned agent hits cost one range lookup; humans nothing.',
    ],
  };
}
