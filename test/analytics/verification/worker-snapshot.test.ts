import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import type { VerificationInput } from '../../../src/analytics/verification/hit-verifier.js';
import { saveRangeFile } from '../../../src/analytics/verification/range-refresh.js';
import { VerificationService } from '../../../src/analytics/verification/verification-service.js';
import { FIXTURE_RANGES } from '../../fixtures/agent-ranges.js';
import { startFakeKeyDirectory, TestSigner, type FakeKeyDirectory } from '../../fakes/web-bot-auth-signer.js';

const NOW = Date.UTC(2026, 10, 24, 12);

/**
 * A worker thread that builds its verifier the way IngestPool's workers do: it imports
 * `worker.module` (the bootstrap, as a compiled build would) and calls createHitVerifier
 * with `worker.data`. It answers each input with its verdict.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  const { register } = await import('tsx/esm/api');
  register();
  const { createHitVerifier } = await import(workerData.module);
  const verifier = createHitVerifier(workerData.data);
  parentPort.on('message', (input) => parentPort.postMessage(input === 'version' ? String(verifier.rangesVersion) : verifier.verify(input)));
  parentPort.postMessage('started');
})();
`;

/**
 * Starts a worker running WORKER_SOURCE, waits for its 'started', and returns `ask`: posts
 * one message and waits for its answer (answers come in order). `workers` collects it for
 * terminate().
 */
async function startWorker(workerData: unknown, workers: Worker[]): Promise<(message: unknown) => Promise<string>> {
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData });
  workers.push(worker);
  const answers: string[] = [];
  worker.on('message', (message: string) => answers.push(message));
  const answer = async (index: number): Promise<string> => {
    for (let waited = 0; answers.length <= index && waited < 10_000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
    return answers[index] ?? 'no answer';
  };
  expect(await answer(0)).toBe('started');
  return (message) => {
    worker.postMessage(message);
    return answer(answers.length);
  };
}

describe('verification in an ingest worker thread', () => {
  const signer = new TestSigner();
  let directory: FakeKeyDirectory;
  const workers: Worker[] = [];
  let ask: (message: unknown) => Promise<string>;
  let service: VerificationService;

  beforeAll(async () => {
    directory = await startFakeKeyDirectory([signer]);
    service = new VerificationService({
      clock: new ManualClock(NOW),
      dataDir: null,
      rangeRefreshMs: null,
      allowLoopback: true,
      resolve: () => Promise.resolve([{ address: '127.0.0.1', family: 4 }]),
    });
    await service.start();
    const { worker: spec } = service.ingestVerifier();
    expect(spec.module).toMatch(/worker-hit-verifier-bootstrap\.mjs$/);
    ask = await startWorker({ module: spec.module, data: spec.data() }, workers);
  });
  afterAll(async () => {
    await Promise.all(workers.map((worker) => worker.terminate()));
    service.stop();
    await directory.close();
  });

  it('asks the service for what it could not check, hears the new evidence, and shares the nonce table with the main thread', async () => {
    const agentUrl = `http://chatgpt.com:${directory.port}`;
    const input = (nonce: string): VerificationInput => ({
      category: 'ai-agent',
      agent: 'ChatGPT',
      operator: 'OpenAI',
      ip: null,
      signature: signer.headers({ agentUrl, authority: 'docs.example.com', created: NOW / 1000 - 1, nonce }),
      at: NOW,
      authorities: ['docs.example.com'],
    });

    // Unknown directory: claimed; the worker's request reaches the service, which fetches it.
    expect(await ask(input('first'))).toBe('claimed');
    for (let waited = 0; service.keys.directory(agentUrl).state !== 'ready' && waited < 5_000; waited += 10)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(service.keys.directory(agentUrl).state).toBe('ready');

    // The new snapshot reaches the worker (published within a quarter second).
    let verdict = 'claimed';
    for (let attempt = 0; verdict !== 'verified' && attempt < 50; attempt++) {
      verdict = await ask(input(`second-${attempt}`));
      if (verdict !== 'verified') await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(verdict).toBe('verified');
    expect(await ask(input('third'))).toBe('verified');
    // The same signature replayed on the main thread: the nonce table is shared memory.
    expect(service.verifier().verify(input('third'))).toBe('spoofed');
  });
});

describe('an ingest worker whose start data predates the ranges', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'docwright-worker-ranges-'));
  const workers: Worker[] = [];
  let service: VerificationService;
  afterAll(async () => {
    await Promise.all(workers.map((worker) => worker.terminate()));
    service.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('asks for the evidence once it listens, so it verifies with the ranges loaded meanwhile, and a worker started later gets them at once', async () => {
    await saveRangeFile(dataDir, FIXTURE_RANGES);
    service = new VerificationService({ clock: new ManualClock(NOW), dataDir, rangeRefreshMs: null });
    // As createAnalyticsService does: the pool's verifier is taken before start() has loaded the ranges.
    const { worker: spec } = service.ingestVerifier();
    const stale = spec.data();
    expect(stale.snapshot.ranges.sets).toEqual([]);
    await service.start();
    // The load's snapshot is published a quarter second later, to no worker yet.
    await new Promise((resolve) => setTimeout(resolve, 600));
    const fingerprint = service.catalog.fingerprint;
    expect(fingerprint).toMatch(/^[0-9a-f]+$/);
    // GPTBot from outside its complete list: spoofed, but claimed by a worker without the ranges.
    const outside: VerificationInput = { category: 'ai-training', agent: 'GPTBot', operator: 'OpenAI', ip: '198.51.100.7', signature: null, at: NOW };

    const lateStarter = await startWorker({ module: spec.module, data: stale }, workers);
    let version = await lateStarter('version');
    for (let attempt = 0; version !== fingerprint && attempt < 100; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      version = await lateStarter('version');
    }
    expect(version).toBe(fingerprint);
    expect(await lateStarter(outside)).toBe('spoofed');

    // The pool reads the data as each worker starts.
    const fresh = spec.data();
    expect(fresh.snapshot.ranges.fingerprint).toBe(fingerprint);
    const later = await startWorker({ module: spec.module, data: fresh }, workers);
    expect(await later('version')).toBe(fingerprint);
    expect(await later(outside)).toBe('spoofed');
  });
});
