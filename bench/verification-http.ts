/**
 * Agent verification's cost on the deployed ingest path: the events endpoint over HTTP, in
 * a real server process with its ingest worker threads, verification on against off. The
 * in-process comparisons of verification-suite.ts isolate the preparation and the store;
 * this one is what a docs host sending events pays, so every fixed cost of a request
 * (HTTP, JSON, the worker hand-off, the insert) is in both sides.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeKeyDirectory, type TestSigner } from '../test/fakes/web-bot-auth-signer.js';
import { startBenchServer, type BenchServer } from './lib/docwright-server.js';
import { postConcurrently } from './lib/http-load.js';
import { foldProgress, type FoldProgress } from './analytics-fold-progress.js';
import { createHitClassifier } from '../src/analytics/classification/classify-hit.js';
import { BATCH_STEP_MS, makeBatches, UA } from './verification-batches.js';
import { pairedRounds, type Comparison } from './verification-costs.js';

export interface HttpVerificationCost extends Comparison {
  /** Signed hits the verifying server stored as verified, of those it was sent after the warm-up round. */
  signedVerified: number;
  signedSent: number;
}

const CLIENTS = 4;
/**
 * A round's batches are made before it is sent, with instants one BATCH_STEP_MS apart that
 * end now (as the in-process comparisons' clock moves), at most this far back: the
 * server's clock is real and a signature's window is its 60 s lifetime plus 60 s of skew,
 * so the oldest must still be valid when the round's second side is sent.
 */
const ROUND_SPAN_MS = 40_000;
/** How long a server's fold may take to catch up after a round (150,000 hits fold in a few seconds). */
const FOLD_WAIT_LIMIT_SECONDS = 300;

/** The agent the signed hits name (ChatGPT-User's); GPTBot and Googlebot hits are verified by the shipped ranges too. */
const SIGNED_AGENT = createHitClassifier().classify({ userAgent: UA.chatgpt, path: '/' }).agent;

async function signedAgentRow(server: BenchServer): Promise<{ hits: number; verifiedHits: number }> {
  const row = (await agentRows(server)).find((candidate) => candidate.agent === SIGNED_AGENT);
  return row ?? { hits: 0, verifiedHits: 0 };
}

async function agentRows(server: BenchServer): Promise<Array<{ agent: string; hits: number; verifiedHits: number }>> {
  const response = await fetch(`${server.url}/v1/analytics/${encodeURIComponent(server.projectId)}/agents?limit=250`, {
    headers: { authorization: `Bearer ${server.apiKey}` },
  });
  if (response.status !== 200) throw new Error(`GET …/agents answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { agents: Array<{ agent: string; hits: number; verifiedHits: number }> }).agents;
}

/**
 * Two servers (SQLite, default ingest workers), one with DOCWRIGHT_AGENT_VERIFICATION=on and
 * a key directory on loopback, one with it off; each round sends both the same shape of
 * batches (fresh nonces), which first alternating, and compares hits per CPU-second of the
 * server process (its worker threads included). The first round is a warm-up: the key
 * directory is fetched in the background when the first signed hit arrives.
 */
export async function verificationOverHttp(options: { signer: TestSigner; batches: number; signedShare: number }): Promise<HttpVerificationCost> {
  const { signer } = options;
  const directory = await startFakeKeyDirectory([signer]);
  const agentUrl = `http://chatgpt.com:${directory.port}`;
  const scratch = mkdtempSync(join(tmpdir(), 'docwright-bench-verification-http-'));
  const environment = { BENCH_VERIFICATION_LOOPBACK: '1', BENCH_PROJECT_SETTINGS: JSON.stringify({ siteHosts: ['docs.example.com'] }) };
  const servers: BenchServer[] = [];
  const folds = new Map<BenchServer, FoldProgress>();
  try {
    const on = await startBenchServer({ dataDir: join(scratch, 'on'), environment: { ...environment, DOCWRIGHT_AGENT_VERIFICATION: 'on' } });
    servers.push(on);
    folds.set(on, foldProgress({ dataDir: join(scratch, 'on'), databaseUrl: undefined }));
    const off = await startBenchServer({ dataDir: join(scratch, 'off'), environment: { ...environment, DOCWRIGHT_AGENT_VERIFICATION: 'off' } });
    servers.push(off);
    folds.set(off, foldProgress({ dataDir: join(scratch, 'off'), databaseUrl: undefined }));
    const hitsPerRound = options.batches * 1_000;
    // Each server's background fold (SQLite rollups, the same work on both sides) runs after
    // 2 s without requests, so while the other server is measured; a step still running
    // when its own next round starts put fold CPU into that round's window. Each send now
    // waits, after its window, until its server has folded everything.
    /** Hits per CPU-second of `server` for one round's batches. */
    const send = async (server: BenchServer, batches: unknown[][]): Promise<number> => {
      const bodies = batches.map((events) => Buffer.from(JSON.stringify({ events })));
      let next = 0;
      const before = await server.cpuSeconds();
      await postConcurrently({
        url: `${server.url}/v1/analytics/${encodeURIComponent(server.projectId)}/events`,
        headers: { authorization: `Bearer ${server.apiKey}`, 'content-type': 'application/json' },
        nextBody: () => bodies[next++],
        concurrency: CLIENTS,
        expectedStatus: 202,
      });
      const rate = hitsPerRound / ((await server.cpuSeconds()) - before);
      if ((await folds.get(server)!.waitUntilFolded(FOLD_WAIT_LIMIT_SECONDS)) === null)
        throw new Error(`the server's fold did not catch up within ${FOLD_WAIT_LIMIT_SECONDS} s`);
      return rate;
    };
    const signedIn = (batches: unknown[][]): number => batches.flat().filter((event) => (event as { webBotAuth?: unknown }).webBotAuth !== undefined).length;
    let signedSent = 0;
    let verifiedAfterWarmUp = 0;
    const comparison = await pairedRounds(async (round) => {
      // Counted from the first timed round on: the warm-up's signed hits may arrive before the directory is known.
      if (round === 1) verifiedAfterWarmUp = (await signedAgentRow(on)).verifiedHits;
      const step = Math.min(BATCH_STEP_MS, Math.floor(ROUND_SPAN_MS / options.batches));
      const start = Date.now() - options.batches * step;
      const offBatches = makeBatches(options.batches, 1_000, signer, options.signedShare, agentUrl, start, step);
      const onBatches = makeBatches(options.batches, 1_000, signer, options.signedShare, agentUrl, start, step);
      if (round > 0) signedSent += signedIn(onBatches);
      return { off: () => send(off, offBatches), on: () => send(on, onBatches) };
    });
    const verified = (await signedAgentRow(on)).verifiedHits - verifiedAfterWarmUp;
    return { ...comparison, signedVerified: verified, signedSent };
  } finally {
    for (const progress of folds.values()) await progress.close();
    for (const server of servers) await server.stop();
    await directory.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}
