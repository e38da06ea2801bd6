import type { DocsTaskRunner } from '../../docs-site/docs-task-runner.js';
import type { CheckLimits } from '../../docs-site/check-limits.js';
import type { ToolWorkerPool } from './tool-worker-pool.js';
import type { ToolLimits } from './tool-limits.js';

/** The docs check's content work, run in the tool worker threads (time, size and memory limits). */
export function poolDocsRunner(pool: ToolWorkerPool): DocsTaskRunner {
  return {
    size: pool.size,
    analyzePage: (input, timeoutMs) => pool.run({ kind: 'analyze-page', ...input }, timeoutMs),
    buildConfig: (input, timeoutMs) => pool.run({ kind: 'site-config', ...input }, timeoutMs),
    openApiPages: (input, timeoutMs) => pool.run({ kind: 'openapi-pages', ...input }, timeoutMs),
  };
}

/** The docs check's caps, from the tool limits (the agent's and the CLI's). */
export function docsCheckLimits(limits: ToolLimits): CheckLimits {
  return {
    maxPages: limits.maxCheckedPages,
    maxPageBytes: limits.maxCheckedPageBytes,
    maxConfigBytes: limits.maxFileBytes,
    pageTimeoutMs: limits.pageCheckTimeoutMs,
    maxProblemsPerPage: limits.maxProblems,
  };
}
