import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createJobHarness, type JobHarness } from '../helpers/job-harness.js';
import { processEnvironment } from '../helpers/docwright-process.js';
import { runCli } from '../helpers/run-cli.js';

describe('docwright usage and projects set-budget', () => {
  let h: JobHarness;
  let environment: Record<string, string>;

  beforeAll(async () => {
    h = await createJobHarness('sqlite', () => ({ text: 'Nothing to change.', usage: { inputTokens: 1_200, outputTokens: 34, cachedInputTokens: 200 } }));
    const url = await h.app.listen({ port: 0, host: '127.0.0.1' });
    environment = { DOCWRIGHT_URL: url, DOCWRIGHT_API_KEY: h.key, DOCWRIGHT_PROJECT: h.projectId };
    const created = await h.request('POST', `/v2/agent/${h.projectId}/job`, { prompt: 'Check the docs' });
    await h.waitForSettled(created.body.id as string);
  });
  afterAll(async () => h?.close());

  test('set-budget writes the project setting; usage prints the month and the budget, or the API report with --json', async () => {
    const local = processEnvironment(h.testDatabase);
    const set = await runCli(['projects', 'set-budget', h.projectId, '--monthly-tokens', '100000'], local);
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toBe('Example Docs may use 100,000 tokens per month.\n');
    expect((await h.services.projects.get(h.projectId)).settings.monthlyTokenBudget).toBe(100_000);

    const month = new Date().toISOString().slice(0, 7);
    const human = await runCli(['usage'], environment);
    expect(human.code, human.stderr).toBe(0);
    const lines = human.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^MONTH\s+INPUT\s+CACHED\s+OUTPUT\s+TOTAL\s+EST\. COST$/);
    // The fake model has no price in the shipped table: its tokens are counted, not costed.
    expect(lines[1]).toMatch(new RegExp(`^${month}\\s+1,200\\s+200\\s+34\\s+1,234\\s+\\$0\\.0000 \\(\\+1,234 unpriced tokens\\)$`));
    expect(lines[2]).toBe(`Budget ${month}: 1,234 of 100,000 tokens used, 98,766 left.`);

    const json = await runCli(['usage', '--from', month, '--json'], environment);
    expect(JSON.parse(json.stdout)).toEqual((await h.request('GET', `/v2/agent/${h.projectId}/usage?from=${month}`)).body);

    const reset = await runCli(['projects', 'set-budget', h.projectId, '--reset'], local);
    expect(reset.code, reset.stderr).toBe(0);
    expect((await h.services.projects.get(h.projectId)).settings.monthlyTokenBudget).toBeUndefined();
    const neither = await runCli(['projects', 'set-budget', h.projectId], local);
    expect(neither.code).not.toBe(0);
    const badMonth = await runCli(['usage', '--from', '2025-13'], environment);
    expect(badMonth.code).toBe(2);
  });
});
