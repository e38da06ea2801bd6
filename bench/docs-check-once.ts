/**
 * One full docs check of a generated site, for profiling outside the suite:
 *
 *   node --cpu-prof --cpu-prof-dir=/tmp/docs-prof --import tsx bench/docs-check-once.ts [PAGES]
 *
 * writes one .cpuprofile per thread (the main thread and each tool worker); summarize them
 * with bench/jobs/experiments/summarize-cpu-profile.ts. Uses the site the `docs` suite
 * generates in bench/.data (generated here if missing).
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DocsChecker } from '../src/docs-site/docs-checker.js';
import { docsCheckLimits, poolDocsRunner } from '../src/agent/tools/docs-task-runner-pool.js';
import { DEFAULT_TOOL_LIMITS } from '../src/agent/tools/tool-limits.js';
import { ToolWorkerPool } from '../src/agent/tools/tool-worker-pool.js';
import { WorkspaceFiles } from '../src/agent/tools/workspace-files.js';
import { generateDocsSite } from './docs-site-generator.js';

const pageCount = Number(process.argv[2] ?? 2000);
const site = generateDocsSite(join(fileURLToPath(new URL('.', import.meta.url)), '.data', `docs-site-${pageCount}`), pageCount);
const pool = new ToolWorkerPool();
const checker = new DocsChecker({
  current: new WorkspaceFiles(site.directory),
  runner: poolDocsRunner(pool),
  limits: docsCheckLimits(DEFAULT_TOOL_LIMITS),
  timeoutMs: DEFAULT_TOOL_LIMITS.checkDocsTimeoutMs,
});
const startedAt = performance.now();
const result = await checker.check();
const cpu = process.cpuUsage();
process.stdout.write(
  `${result.pagesChecked} pages, ${result.introduced.length} problems in ${Math.round(performance.now() - startedAt)} ms; process CPU ${Math.round((cpu.user + cpu.system) / 1000)} ms\n`,
);
await pool.close();
