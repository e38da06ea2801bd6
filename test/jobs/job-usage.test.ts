import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { startFakeModelServer, type FakeModelScript } from '../fakes/fake-model-server.js';
import { DEFAULT_MODEL } from '../../src/config/default-model.js';
import { createJobHarness, type JobHarness } from '../helpers/job-harness.js';
import { BACKENDS } from '../helpers/test-database.js';

/**
 * Two model calls with exact usage: a write, then the answer. 5,000 input tokens (1,500 of
 * them cache reads) and 300 output tokens in all.
 */
const script: FakeModelScript = (request) =>
  request.toolRounds === 0
    ? {
        toolCalls: [{ name: 'write_file', arguments: { path: 'costly.mdx', content: '# Costly\n' } }],
        usage: { inputTokens: 2_000, outputTokens: 100, cachedInputTokens: 500 },
      }
    : { text: 'Wrote costly.mdx.', usage: { inputTokens: 3_000, outputTokens: 200, cachedInputTokens: 1_000 } };

/** 3,500 uncached × $2 + 1,500 cached × $0.50 + 300 output × $10, per million tokens. */
const COST_USD = (3_500 * 2 + 1_500 * 0.5 + 300 * 10) / 1_000_000;
const USAGE = { inputTokens: 5_000, outputTokens: 300, cachedInputTokens: 1_500, cacheWriteTokens: 0, estimatedCostUsd: COST_USD };

function priceFile(): string {
  const file = join(mkdtempSync(join(tmpdir(), 'docwright-prices-')), 'prices.json');
  writeFileSync(file, JSON.stringify({ models: { 'openai-compatible:fake-model': { input: 2, output: 10, cachedInput: 0.5 } } }));
  return file;
}

describe.each(BACKENDS)('usage, cost and monthly budgets [%s]', (dialect) => {
  let h: JobHarness | null = null;
  afterEach(async () => {
    await h?.close();
    h = null;
  });

  test('turns and jobs report tokens and cost; a monthly budget stops the second job before the model is called', async () => {
    h = await createJobHarness(dialect, script, { DOCWRIGHT_MODEL_PRICES_FILE: priceFile() });
    const project = await h.services.projects.get(h.projectId);
    await h.services.projects.update(h.projectId, { settings: { ...project.settings, monthlyTokenBudget: 5_000 } });
    const base = `/v2/agent/${h.projectId}`;

    const first = (await h.request('POST', `${base}/job`, { prompt: 'Write a costly page' })).body as { id: string; usage: unknown };
    expect(first.usage).toEqual({ inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, cacheWriteTokens: 0, estimatedCostUsd: null });
    const done = await h.waitForSettled(first.id);
    expect(done.status).toBe('completed');
    expect(done.usage).toEqual(USAGE);
    const turns = (await h.request('GET', `${base}/job/${first.id}/messages`)).body.messages;
    expect(turns[0].usage).toEqual(USAGE);
    const calls = h.model.requests.length;
    expect(calls).toBe(2);

    const second = (await h.request('POST', `${base}/job`, { prompt: 'Write another costly page' })).body as { id: string };
    const stopped = await h.waitForSettled(second.id);
    expect(stopped.status).toBe('failed');
    expect(stopped.error?.code).toBe('budget_exceeded');
    expect(stopped.error?.message).toContain('monthly token budget (5,000 tokens)');
    expect(stopped.usage).toEqual({ inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, cacheWriteTokens: 0, estimatedCostUsd: null });
    expect(h.model.requests.length).toBe(calls);

    const report = await h.request('GET', `${base}/usage`);
    expect(report.status).toBe(200);
    const month = new Date().toISOString().slice(0, 7);
    expect(report.body).toEqual({
      projectId: h.projectId,
      months: [{ month, ...USAGE, totalTokens: 5_300, unpricedTokens: 0 }],
      budget: { monthlyTokens: 5_000, month, usedTokens: 5_300, remainingTokens: 0 },
    });

    // The budget is what stopped it: raised, the same job's follow-up runs.
    await h.services.projects.update(h.projectId, { settings: { ...project.settings, monthlyTokenBudget: 50_000 } });
    await h.request('POST', `${base}/job/${second.id}/message`, { prompt: 'Try again' });
    expect((await h.waitForSettled(second.id)).status).toBe('completed');
    const after = (await h.request('GET', `${base}/usage`)).body;
    expect(after.months[0]).toMatchObject({ totalTokens: 10_600, estimatedCostUsd: COST_USD * 2 });
    expect(after.budget).toEqual({ monthlyTokens: 50_000, month, usedTokens: 10_600, remainingTokens: 39_400 });
  });

  test('the usage report validates its months and fills empty ones', async () => {
    h = await createJobHarness(dialect, script);
    const base = `/v2/agent/${h.projectId}/usage`;
    const range = await h.request('GET', `${base}?from=2024-11&to=2025-02`);
    expect(range.status).toBe(200);
    expect(range.body.months.map((entry: { month: string }) => entry.month)).toEqual(['2025-02', '2025-01', '2024-12', '2024-11']);
    expect(range.body.months[0]).toMatchObject({ totalTokens: 0, estimatedCostUsd: 0 });
    expect(range.body.budget.monthlyTokens).toBeNull();
    for (const query of ['from=2025-13', 'from=2025-03&to=2025-01', 'from=2020-01&to=2025-01']) {
      const bad = await h.request('GET', `${base}?${query}`);
      expect(bad.status, query).toBe(400);
      expect(bad.headers['content-type']).toMatch(/^application\/problem\+json/);
    }
  });

  test("Anthropic's cache writes are recorded beside the reads, and priced at the shipped table's cache prices", async () => {
    const provider = await startFakeModelServer({
      script: () => ({ text: 'Nothing to change.', usage: { inputTokens: 10_000, outputTokens: 100, cachedInputTokens: 6_000, cacheWriteTokens: 3_000 } }),
    });
    try {
      h = await createJobHarness(dialect, script, {
        DOCWRIGHT_MODEL: DEFAULT_MODEL,
        ANTHROPIC_API_KEY: 'sk-ant-test-key-123456',
        DOCWRIGHT_ANTHROPIC_BASE_URL: provider.url,
      });
      const base = `/v2/agent/${h.projectId}`;
      const created = (await h.request('POST', `${base}/job`, { prompt: 'Check the pages' })).body as { id: string };
      const done = await h.waitForSettled(created.id);
      // 1,000 uncached × $2 + 6,000 read × $0.20 + 3,000 written × $2.50 + 100 output × $10, per million (src/config/model-prices.json).
      const usage = { inputTokens: 10_000, outputTokens: 100, cachedInputTokens: 6_000, cacheWriteTokens: 3_000, estimatedCostUsd: 0.0117 };
      expect(done.status).toBe('completed');
      expect(done.usage).toEqual(usage);
      expect((await h.request('GET', `${base}/job/${created.id}/messages`)).body.messages[0].usage).toEqual(usage);
      expect((await h.request('GET', `${base}/usage`)).body.months[0]).toEqual({
        month: new Date().toISOString().slice(0, 7),
        ...usage,
        totalTokens: 10_100,
        unpricedTokens: 0,
      });
      expect(provider.requests).toHaveLength(1);
    } finally {
      await provider.close();
    }
  });
});
