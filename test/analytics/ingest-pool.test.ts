import fc from 'fast-check';
import { afterEach, describe, expect, test } from 'vitest';
import { IngestPool } from '../../src/analytics/ingest-pool.js';
import { VERIFICATION_CODES } from '../../src/analytics/analytics-codes.js';
import type { HitVerifier } from '../../src/analytics/verification/hit-verifier.js';
import type { BatchContext } from '../../src/analytics/prepare-batch.js';
import { USER_AGENTS } from '../helpers/analytics-kit.js';

const NOW = Date.UTC(2026, 5, 1, 12);
const context: BatchContext = { projectId: 'p1', rotateDaily: false, window: { receivedAt: NOW, latest: NOW + 300_000, earliest: NOW - 30 * 86_400_000 } };
const encode = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));

const eventArbitrary = fc.oneof(
  fc.record(
    {
      path: fc.constantFrom('/', '/a', '/a.md', 'bad', '/x?y=1'),
      ip: fc.constantFrom('10.0.0.1', '2001:db8::1', 'nope'),
      visitorId: fc.string({ minLength: 1, maxLength: 5 }),
      userAgent: fc.constantFrom(...Object.values(USER_AGENTS), ''),
      accept: fc.constantFrom('text/markdown', 'text/html'),
      timestamp: fc.integer({ min: NOW - 40 * 86_400_000, max: NOW + 600_000 }).map((ms) => new Date(ms).toISOString()),
      id: fc.string({ minLength: 1, maxLength: 4 }),
      referrer: fc.constant('https://example.com/'),
    },
    { requiredKeys: ['path'] },
  ),
  fc.anything(),
);

describe('IngestPool', () => {
  const pools: IngestPool[] = [];
  afterEach(async () => {
    await Promise.all(pools.splice(0).map((pool) => pool.close()));
  });
  const pool = (workers: number) => {
    const created = new IngestPool({ secret: 'a-secret-of-at-least-thirty-two-characters', workers });
    pools.push(created);
    return created;
  };

  test('a verifier reaches the worker threads through its module, and the calling thread through itself', async () => {
    const module = new URL('../fixtures/verifiers/verify-by-agent.mjs', import.meta.url).href;
    const loaded = (await import(module)) as { createHitVerifier(data: unknown): HitVerifier };
    const data = { verified: ['ChatGPT'] };
    const events = [
      { path: '/a', visitorId: 'h', userAgent: USER_AGENTS.human },
      { path: '/a', visitorId: 'c', userAgent: USER_AGENTS.ai },
      { path: '/a', visitorId: 'g', userAgent: USER_AGENTS.aiTraining },
    ];
    const expected = [VERIFICATION_CODES.none, VERIFICATION_CODES.verified, VERIFICATION_CODES.claimed];
    const verifier = { verifier: loaded.createHitVerifier(data), worker: { module, data } };
    const threaded = new IngestPool({ secret: 'a-secret-of-at-least-thirty-two-characters', workers: 1, verifier });
    const inline = new IngestPool({ secret: 'a-secret-of-at-least-thirty-two-characters', workers: 1, verifier: { verifier: verifier.verifier } });
    pools.push(threaded, inline);
    for (const prepared of [await threaded.prepare(encode({ events }), context), await inline.prepare(encode({ events }), context)]) {
      if (!prepared.ok) throw new Error(prepared.message);
      expect([...prepared.columns.verification]).toEqual(expected);
    }
    expect(threaded.running).toBe(1);
    // Without a worker module the pool cannot hand the verifier over, so it prepares on the calling thread.
    expect(inline.running).toBe(0);
  });

  test("a worker's data given as a function is read as that worker starts, not when the pool is built", async () => {
    const module = new URL('../fixtures/verifiers/verify-by-agent.mjs', import.meta.url).href;
    let current = { verified: [] as string[] };
    let reads = 0;
    const data = () => {
      reads++;
      return current;
    };
    // The calling thread's verifier verifies nobody: a verified hit can only come from the worker.
    const threaded = new IngestPool({
      secret: 'a-secret-of-at-least-thirty-two-characters',
      workers: 1,
      verifier: { verifier: { verify: (input) => (input.category === 'human' ? 'none' : 'claimed') }, worker: { module, data } },
    });
    pools.push(threaded);
    expect(reads).toBe(0);
    // What the evidence became after the pool was built (the ranges loaded, say).
    current = { verified: ['ChatGPT'] };
    const prepared = await threaded.prepare(encode({ events: [{ path: '/a', visitorId: 'c', userAgent: USER_AGENTS.ai }] }), context);
    if (!prepared.ok) throw new Error(prepared.message);
    expect([...prepared.columns.verification]).toEqual([VERIFICATION_CODES.verified]);
    expect(threaded.running).toBe(1);
    expect(reads).toBe(1);
  });

  test('a worker prepares exactly what the calling thread would', async () => {
    const threaded = pool(1);
    const inline = pool(0);
    await fc.assert(
      fc.asyncProperty(fc.array(eventArbitrary, { maxLength: 30 }), async (events) => {
        const body = encode({ events });
        expect(await threaded.prepare(body, context)).toEqual(inline.prepareInline(body, context));
      }),
      { numRuns: 40 },
    );
    expect(threaded.running).toBe(1);
    expect(inline.running).toBe(0);
  });

  test('bad bodies are refused the same way on both paths', async () => {
    const threaded = pool(1);
    for (const body of ['{', '[]', '{"events": 3}', JSON.stringify({ events: Array.from({ length: 1001 }, () => ({})) })]) {
      const bytes = new TextEncoder().encode(body);
      const result = await threaded.prepare(bytes, context);
      expect(result.ok, body.slice(0, 20)).toBe(false);
      expect(result).toEqual(threaded.prepareInline(bytes, context));
    }
  });

  test('batches held by a worker that dies are prepared on the calling thread', async () => {
    const errors: unknown[] = [];
    const threaded = new IngestPool({ secret: 'a-secret-of-at-least-thirty-two-characters', workers: 1, onWorkerError: (error) => errors.push(error) });
    pools.push(threaded);
    const body = encode({ events: [{ path: '/a', visitorId: 'v', userAgent: USER_AGENTS.human, timestamp: new Date(NOW).toISOString() }] });
    await threaded.prepare(body, context);
    const pending = threaded.prepare(body, context);
    await (threaded as unknown as { slots: Array<{ worker: { terminate(): Promise<number> } }> }).slots[0]!.worker.terminate();
    const result = await pending;
    expect(result.ok).toBe(true);
    expect(errors).toHaveLength(1);
    // The next batch starts a new worker.
    expect((await threaded.prepare(body, context)).ok).toBe(true);
  });
});
