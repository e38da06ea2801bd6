import { Worker } from 'node:worker_threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import type { VerificationWants } from '../../../src/analytics/verification/evidence-verifier.js';
import type { VerificationInput } from '../../../src/analytics/verification/hit-verifier.js';
import { VerificationService } from '../../../src/analytics/verification/verification-service.js';
import { startFakeKeyDirectory, TestSigner, type FakeKeyDirectory } from '../../fakes/web-bot-auth-signer.js';

const NOW = Date.UTC(2026, 10, 24, 12);

/** A worker thread holding a WorkerVerifierHolder, as the ingest worker does. */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  const { register } = await import('tsx/esm/api');
  register();
  const { WorkerVerifierHolder } = await import(workerData.snapshotModule);
  const { claimOnlyVerifier } = await import(workerData.seamModule);
  const holder = new WorkerVerifierHolder(claimOnlyVerifier);
  parentPort.on('message', (message) => {
    if (holder.accept(message)) return parentPort.postMessage({ kind: 'snapshot-taken', version: message.snapshot.version });
    parentPort.postMessage({ kind: 'verdict', verdict: holder.verify(message), wants: holder.takeWants() });
  });
  parentPort.postMessage({ kind: 'started' });
})();
`;

type Reply = { kind: 'started' } | { kind: 'snapshot-taken'; version: number } | { kind: 'verdict'; verdict: string; wants: VerificationWants | null };

describe('verification in an ingest worker thread', () => {
  const signer = new TestSigner();
  let directory: FakeKeyDirectory;
  let worker: Worker;
  const replies: Reply[] = [];
  const next = async (kind: Reply['kind']): Promise<Reply> => {
    for (let waited = 0; waited < 10_000; waited += 10) {
      const index = replies.findIndex((reply) => reply.kind === kind);
      if (index !== -1) return replies.splice(index, 1)[0]!;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`no ${kind} from the worker`);
  };

  beforeAll(async () => {
    directory = await startFakeKeyDirectory([signer]);
    worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        snapshotModule: new URL('../../../src/analytics/verification/verifier-snapshot.ts', import.meta.url).href,
        seamModule: new URL('../../../src/analytics/verification/hit-verifier.ts', import.meta.url).href,
      },
    });
    worker.on('message', (reply: Reply) => replies.push(reply));
    await next('started');
  });
  afterAll(async () => {
    await worker.terminate();
    await directory.close();
  });

  it('verifies from posted snapshots, returns what it could not check, and shares the nonce table with the main thread', async () => {
    const clock = new ManualClock(NOW);
    const service = new VerificationService({
      clock,
      dataDir: null,
      rangeRefreshMs: null,
      allowLoopback: true,
      resolve: () => Promise.resolve([{ address: '127.0.0.1', family: 4 }]),
    });
    await service.start();
    const stop = service.feedWorker(worker);
    await next('snapshot-taken');
    const agentUrl = `http://chatgpt.com:${directory.port}`;
    const input = (nonce: string): VerificationInput => ({
      category: 'ai-agent',
      agent: 'ChatGPT',
      operator: 'OpenAI',
      ip: null,
      signature: signer.headers({ agentUrl, authority: 'docs.example.com', created: NOW / 1000 - 1, nonce }),
      at: NOW,
    });

    // Unknown directory: claimed, and the worker hands the fetch back.
    worker.postMessage(input('first'));
    const first = (await next('verdict')) as Extract<Reply, { kind: 'verdict' }>;
    expect(first.verdict).toBe('claimed');
    expect(first.wants?.directories).toEqual([agentUrl]);
    service.want(first.wants);
    await service.settled();
    await next('snapshot-taken');

    worker.postMessage(input('second'));
    expect(((await next('verdict')) as Extract<Reply, { kind: 'verdict' }>).verdict).toBe('verified');
    // The same signature replayed on the main thread: the nonce table is shared memory.
    expect(service.verifier().verify(input('second'))).toBe('spoofed');
    stop();
    service.stop();
  });
});
