import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import type { VerificationInput } from '../../../src/analytics/verification/hit-verifier.js';
import { VerificationService } from '../../../src/analytics/verification/verification-service.js';
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
  parentPort.on('message', (input) => parentPort.postMessage(verifier.verify(input)));
  parentPort.postMessage('started');
})();
`;

describe('verification in an ingest worker thread', () => {
  const signer = new TestSigner();
  let directory: FakeKeyDirectory;
  let worker: Worker;
  let service: VerificationService;
  const replies: string[] = [];
  const reply = async (): Promise<string> => {
    for (let waited = 0; replies.length === 0 && waited < 10_000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
    const next = replies.shift();
    if (next === undefined) throw new Error('no answer from the worker');
    return next;
  };

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
    worker = new Worker(WORKER_SOURCE, { eval: true, workerData: spec });
    worker.on('message', (message: string) => replies.push(message));
    expect(await reply()).toBe('started');
  });
  afterAll(async () => {
    await worker.terminate();
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
    worker.postMessage(input('first'));
    expect(await reply()).toBe('claimed');
    for (let waited = 0; service.keys.directory(agentUrl).state !== 'ready' && waited < 5_000; waited += 10)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(service.keys.directory(agentUrl).state).toBe('ready');

    // The new snapshot reaches the worker (published within a quarter second).
    let verdict = 'claimed';
    for (let attempt = 0; verdict !== 'verified' && attempt < 50; attempt++) {
      worker.postMessage(input(`second-${attempt}`));
      verdict = await reply();
      if (verdict !== 'verified') await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(verdict).toBe('verified');
    worker.postMessage(input('third'));
    expect(await reply()).toBe('verified');
    // The same signature replayed on the main thread: the nonce table is shared memory.
    expect(service.verifier().verify(input('third'))).toBe('spoofed');
  });
});
