import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { runAgentBenchmarks } from '../../bench/agent-suite.js';
import { requestFigures } from '../../bench/agent/context-figures.js';
import type { FakeModelRequest } from '../fakes/fake-model-server.js';

const dataDir = mkdtempSync(join(tmpdir(), 'docwright-bench-agent-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** A recorded Anthropic request with just what the figures read. */
function recorded(body: Record<string, unknown>): FakeModelRequest {
  const rawBody = JSON.stringify(body);
  return { body, rawBody, estimatedInputTokens: Math.ceil(rawBody.length / 4) } as FakeModelRequest;
}

const toolUse = (call: number, path: string): object => ({
  role: 'assistant',
  content: [{ type: 'tool_use', id: `toolu_${call}_0`, name: 'read_file', input: { path } }],
});
const toolResult = (call: number, text: string): object => ({
  role: 'user',
  content: [{ type: 'tool_result', tool_use_id: `toolu_${call}_0`, content: text }],
});

describe('the naive baseline, rebuilt from the records', () => {
  test('keeps every step whole, counts what the agent elided or cut, and prices it uncached', () => {
    const page = 'x'.repeat(20_000);
    const prompt = { role: 'user', content: 'Fix the docs' };
    const base = { model: 'claude', system: 'You edit docs.', tools: [{ name: 'read_file' }] };
    // The tools' uncapped results for the two steps.
    const naiveResults = [JSON.stringify({ content: page }), JSON.stringify({ content: page })];
    // Step 1's result is whole when first sent and elided later; step 2's is cut when first sent.
    const requests = [
      recorded({ ...base, messages: [prompt] }),
      recorded({ ...base, messages: [prompt, toolUse(0, 'a.mdx'), toolResult(0, JSON.stringify({ content: page }))] }),
      recorded({ ...base, messages: [prompt, toolUse(0, 'a.mdx'), toolResult(0, 'read a.mdx'), toolUse(1, 'b.mdx'), toolResult(1, 'cut')] }),
    ];
    const answers = [
      { step: 0, replyText: 'a' },
      { step: 1, replyText: 'b' },
      { step: -1, replyText: 'done' },
    ];
    const price = { input: 2, output: 10 };
    const figures = requestFigures({ requests, answers, naiveResults, price });
    expect(figures.requestTokens).toEqual(requests.map((request) => request.estimatedInputTokens));
    expect(figures.naiveRequestTokens[0]).toBe(figures.requestTokens[0]);
    expect(figures.naiveRequestTokens[1]).toBe(figures.requestTokens[1]);
    // The last naive request holds both pages in full: about 10,000 tokens more than sent.
    expect(figures.naiveRequestTokens[2]! - figures.requestTokens[2]!).toBeGreaterThan(9_000);
    expect(figures.cappedResults).toBe(1);
    expect(figures.naiveInputTokens).toBe(figures.naiveRequestTokens.reduce((sum, tokens) => sum + tokens, 0));
    expect(figures.outputTokens).toBe(3);
    expect(figures.cacheReported).toBe(false);
    expect(figures.naiveCostMicroUsd).toBe(figures.naiveInputTokens * 2 + 3 * 10);
  });
});

describe('the agent suite at a tiny scale', () => {
  test('runs a real job through the fake Anthropic API and reports its figures against the naive run', async () => {
    const report = await runAgentBenchmarks({ scale: 0.001, backends: ['sqlite'], dataDir, log: () => {} });
    expect(report.title).toMatch(/^agent: context and cost of a 8-step exploration job \(100 pages, anthropic:/);
    const byName = new Map(report.metrics.map((item) => [item.name, item]));
    const largest = byName.get('largest request');
    const cumulative = byName.get('cumulative input over the run');
    const cost = byName.get('cost at list price (cache reads and writes as reported)');
    expect(largest?.target).toEqual({ of: 'value', comparison: 'at-most', limit: 64_000 });
    expect(cumulative?.target).toEqual({ of: 'value', comparison: 'at-most', limit: 1_200_000 });
    expect(cost?.target).toEqual({ of: 'ratio', comparison: 'at-most', limit: 0.25 });
    // The agent never sends more than the naive conversation would, and a real run sends something.
    expect(cumulative?.value).toBeGreaterThan(5_000);
    expect(cumulative?.baseline?.value).toBeGreaterThanOrEqual(cumulative?.value ?? Infinity);
    expect(largest?.baseline?.value).toBeGreaterThanOrEqual(largest?.value ?? Infinity);
    expect(cost?.value).toBeGreaterThan(0);
    const job = byName.get('job completed with its pull request carrying the edit');
    expect(job?.note).toBe("status completed, prLink set, edit on the branch yes, in the pull request's diff yes");
    expect(job?.passed).toBe(true);
    // Eight scripted steps and the final answer: at least nine requests.
    expect(report.notes[0]).toMatch(/^model requests: (9|[1-9]\d+) \(scripted tool steps 8\)/);
  }, 180_000);
});
