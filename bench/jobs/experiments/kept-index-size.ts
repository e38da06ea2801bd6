/**
 * The kept base index of a generated docs repository: its own size estimate against the
 * heap it really takes, and what a job's first check costs with and without it.
 *
 *   node --expose-gc --import tsx bench/jobs/experiments/kept-index-size.ts [--pages N]
 */
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ToolWorkerPool } from '../../../src/agent/tools/tool-worker-pool.js';
import { WorkspaceFiles } from '../../../src/agent/tools/workspace-files.js';
import { docsCheckLimits, poolDocsRunner } from '../../../src/agent/tools/docs-task-runner-pool.js';
import { resolveToolLimits } from '../../../src/agent/tools/tool-limits.js';
import { DocsChecker } from '../../../src/docs-site/docs-checker.js';
import { BaseIndexCache } from '../../../src/docs-site/base-index-cache.js';
import { changedBetween, GitTreeFiles } from '../../../src/git/git-tree-files.js';
import { generateDocsRepository } from '../generate-docs-repository.js';

const { values } = parseArgs({ options: { pages: { type: 'string', default: '2000' } } });
const root = join(tmpdir(), 'docwright-kept-index');
rmSync(root, { recursive: true, force: true });
const repository = generateDocsRepository(join(root, 'docs'), Number(values.pages));
const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repository.directory, encoding: 'utf8' }).trim();
const workers = new ToolWorkerPool();
const limits = resolveToolLimits();
const kept = new BaseIndexCache();
const gc = (globalThis as { gc?: () => void }).gc;
const heap = (): number => {
  gc?.();
  return process.memoryUsage().heapUsed;
};
const checker = (cache: BaseIndexCache | undefined): DocsChecker =>
  new DocsChecker({
    current: new WorkspaceFiles(repository.directory, limits.maxQueryLength),
    base: async () => ({
      source: new GitTreeFiles(repository.directory, head),
      commit: head,
      startDiff: () => changedBetween(repository.directory, head, head),
    }),
    ...(cache === undefined ? {} : { keptBases: cache }),
    runner: poolDocsRunner(workers),
    limits: docsCheckLimits(limits),
    timeoutMs: limits.checkDocsTimeoutMs,
  });
try {
  const before = heap();
  let started = performance.now();
  await checker(kept).check();
  console.log(`first job (builds and keeps the base): ${(performance.now() - started).toFixed(0)} ms`);
  const after = heap();
  console.log(`kept index: estimated ${(kept.bytes / 1e6).toFixed(1)} MB, heap after the job ${((after - before) / 1e6).toFixed(1)} MB more than before`);
  for (let run = 0; run < 3; run++) {
    started = performance.now();
    const result = await checker(kept).check([repository.editedPage]);
    console.log(`next job on the commit (kept index, one page changed): ${(performance.now() - started).toFixed(0)} ms, ${result.pagesChecked} pages`);
  }
  started = performance.now();
  await checker(undefined).check([repository.editedPage]);
  console.log(`a job without the cache (base and working tree built): ${(performance.now() - started).toFixed(0)} ms`);
} finally {
  await workers.close();
  rmSync(root, { recursive: true, force: true });
}
