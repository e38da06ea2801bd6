import { describe, expect, test } from 'vitest';
import type { ToolExecutionOptions } from 'ai';
import { DocwrightError } from '../../../src/core/errors.js';
import { ANALYTICS_TOOL_LIMITS, createAnalyticsTools, type AnalyticsToolQuery, type ProjectAnalytics } from '../../../src/agent/tools/analytics-tool.js';

const NOW = Date.UTC(2026, 10, 24, 15, 30);
const DAY = 86_400_000;
const options: ToolExecutionOptions = { toolCallId: 'call-1', messages: [] };

async function call(analytics: ProjectAnalytics, input: object): Promise<Record<string, unknown>> {
  const execute = createAnalyticsTools(analytics, () => NOW).query_analytics?.execute;
  if (execute === undefined) throw new Error('no execute');
  return (await execute(input as never, options)) as Record<string, unknown>;
}

describe('query_analytics', () => {
  test('defaults to the last 30 whole UTC days and 10 rows, and passes no project of its own', async () => {
    const queries: AnalyticsToolQuery[] = [];
    await call(
      { query: (query) => (queries.push(query), Promise.resolve({ dateFrom: '', dateTo: '', rows: [], hasMore: false })) },
      { report: 'top_pages_ai' },
    );
    const endOfToday = Date.UTC(2026, 10, 25);
    expect(queries).toEqual([{ report: 'top_pages_ai', from: endOfToday - 30 * DAY, to: endOfToday, limit: 10 }]);
  });

  test('caps long paths and the size of the answer, saying it did', async () => {
    const rows = Array.from({ length: 50 }, (_, index) => ({
      path: `/${String(index).padStart(2, '0')}${'x'.repeat(5_000)}`,
      humanReaders: 0,
      aiReaders: 1,
      agentSkew: 1,
    }));
    const result = await call({ query: () => Promise.resolve({ dateFrom: 'a', dateTo: 'b', rows, hasMore: false }) }, { report: 'top_pages_ai', limit: 50 });
    expect(JSON.stringify(result).length).toBeLessThan(ANALYTICS_TOOL_LIMITS.maxResultChars + 1_000);
    const answered = result.rows as Array<{ path: string }>;
    expect(answered.length).toBeGreaterThan(0);
    expect(answered.length).toBeLessThan(50);
    expect(answered[0]?.path.length).toBe(ANALYTICS_TOOL_LIMITS.maxPathChars + 1);
    expect(result).toMatchObject({ truncated: true, hasMore: true });
  });

  test("no answer is above one tool result's 32 KB, whatever its characters take in UTF-8", async () => {
    // Under 12,000 characters of rows, but three bytes each: the row cap alone would send 33 KB.
    const long = '文'.repeat(300);
    const rows = Array.from({ length: 50 }, (_, index) => ({
      path: `/${index}${long}`,
      status: 404,
      hits: 1,
      visitors: 1,
      agents: Array.from({ length: 10 }, () => long),
    }));
    const result = await call({ query: () => Promise.resolve({ dateFrom: 'a', dateTo: 'b', rows, hasMore: false }) }, { report: 'agent_errors', limit: 50 });
    expect(Buffer.byteLength(JSON.stringify(result))).toBeLessThanOrEqual(32 * 1024);
    expect(result).toMatchObject({ truncated: true, note: expect.stringMatching(/above the limit of 32768 bytes for one tool result/) });
    expect(String(result.partial).startsWith('{"report":"agent_errors"')).toBe(true);
  });

  test('a validation message reaches the model; an internal error does not', async () => {
    const refused = await call(
      {
        query: () =>
          Promise.reject(
            new DocwrightError('validation_failed', 'dateFrom lies beyond the raw-hit retention period.', {
              status: 400,
              errors: [{ path: 'dateFrom', message: 'kept for 7 days' }],
            }),
          ),
      },
      { report: 'agent_errors' },
    );
    expect(refused).toEqual({ ok: false, error: 'dateFrom lies beyond the raw-hit retention period. kept for 7 days' });
    const broken = await call({ query: () => Promise.reject(new Error('connect ECONNREFUSED 10.0.0.5:5432 password=hunter2')) }, { report: 'agent_errors' });
    expect(broken.ok).toBe(false);
    expect(JSON.stringify(broken)).not.toContain('hunter2');
  });
});
