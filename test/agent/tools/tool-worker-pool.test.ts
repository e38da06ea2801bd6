import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ToolWorkerPool } from '../../../src/agent/tools/tool-worker-pool.js';

const POOL_MODULE = fileURLToPath(new URL('../../../src/agent/tools/tool-worker-pool.ts', import.meta.url));

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

describe('ToolWorkerPool: ordering and shutdown', () => {
  it('a task sent ahead waits for the one before it, even when its own I/O would finish first', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'docwright-pool-'));
    const pool = new ToolWorkerPool({ size: 1 });
    try {
      // A big file first, then a tiny one sent ahead to the same worker: run side by side,
      // the tiny read would answer first and its answer would be taken for nobody's.
      const big = join(directory, 'big.md');
      const small = join(directory, 'small.md');
      writeFileSync(big, 'line of text\n'.repeat(2_000_000));
      writeFileSync(small, 'one\ntwo\n');
      const read = (absolute: string, shown: string): Parameters<ToolWorkerPool['run']>[0] => ({
        kind: 'read-lines',
        absolute,
        shown,
        maxFileBytes: 64 * 1024 * 1024,
        maxResultBytes: 32 * 1024,
        startLine: 2,
        endLine: 2,
      });
      for (let round = 0; round < 5; round += 1) {
        const [first, second] = await Promise.all([pool.run(read(big, 'big.md'), 20_000), pool.run(read(small, 'small.md'), 20_000)]);
        expect(first.status === 'done' ? first.result : first).toMatchObject({ path: 'big.md', content: '     2\tline of text', totalLines: 2_000_000 });
        expect(second.status === 'done' ? second.result : second).toMatchObject({ path: 'small.md', content: '     2\ttwo', totalLines: 2 });
      }
      expect(pool.stats().started).toBe(1);
    } finally {
      await pool.close();
      rmSync(directory, { recursive: true, force: true });
    }
  }, 60_000);

  it('close() settles when the workers are idle and nothing else keeps the process alive', async () => {
    // In a process of its own, where nothing else keeps the event loop going: a close()
    // that never settles makes the process exit 13 (unsettled top-level await), as the
    // docs check CLI did, instead of finishing.
    const directory = mkdtempSync(join(tmpdir(), 'docwright-pool-'));
    const script = join(directory, 'close.mts');
    writeFileSync(
      script,
      `import { ToolWorkerPool } from ${JSON.stringify(POOL_MODULE)};
      const statuses = [];
      // Closed the moment the tasks are done, while the second worker may still be loading:
      // stopping a loading worker could leave terminate() unsettled (one close in twenty).
      for (let round = 0; round < 10; round += 1) {
        const pool = new ToolWorkerPool({ size: 2 });
        const outcomes = await Promise.all([1, 2, 3].map((n) => pool.run({ kind: 'analyze-page', path: 'p.mdx', text: '# ' + n }, 30_000)));
        await pool.close();
        statuses.push(...outcomes.map((outcome) => outcome.status));
      }
      process.stdout.write(new Set(statuses).size + ' ' + statuses.length + ' closed');`,
    );
    const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', resolve);
    }).finally(() => rmSync(directory, { recursive: true, force: true }));
    expect({ code, stdout, stderr }).toEqual({ code: 0, stdout: '1 30 closed', stderr: '' });
  }, 60_000);
});
