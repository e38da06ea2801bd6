import { describe, expect, it } from 'vitest';
import { ToolWorkerPool } from '../../../src/agent/tools/tool-worker-pool.js';

describe('ToolWorkerPool: a task sent ahead to a busy worker', () => {
  it('runs every task once, in order, on one worker', async () => {
    const pool = new ToolWorkerPool({ size: 1 });
    try {
      const outcomes = await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          pool.run({ kind: 'analyze-page', path: `p${index}.mdx`, text: `# Page ${index}\n\n[next](/p${index + 1})\n` }, 10_000),
        ),
      );
      expect(outcomes.map((outcome) => (outcome.status === 'done' ? outcome.result.links[0]?.target : outcome.status))).toEqual(
        Array.from({ length: 20 }, (_, index) => `/p${index + 1}`),
      );
      expect(pool.stats().started).toBe(1);
    } finally {
      await pool.close();
    }
  });

  it('goes to a new worker when the task before it overruns its limit', async () => {
    const pool = new ToolWorkerPool({ size: 1 });
    try {
      const slow = '- item [x](/x) *a* `b` {1}\n'.repeat(20_000);
      const [timedOut, next, last] = await Promise.all([
        pool.run({ kind: 'analyze-page', path: 'slow.mdx', text: slow }, 1),
        pool.run({ kind: 'analyze-page', path: 'next.mdx', text: '[n](/n)\n' }, 10_000),
        pool.run({ kind: 'analyze-page', path: 'last.mdx', text: '[l](/l)\n' }, 10_000),
      ]);
      expect(timedOut.status).toBe('timeout');
      expect(next.status === 'done' ? next.result.links.map((link) => link.target) : next.status).toEqual(['/n']);
      expect(last.status === 'done' ? last.result.links.map((link) => link.target) : last.status).toEqual(['/l']);
      expect(pool.stats().started).toBe(2);
    } finally {
      await pool.close();
    }
  });
});
