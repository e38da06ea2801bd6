import type { DocsTaskRunner } from '../../docs-site/docs-task-runner.js';
import type { ToolWorkerPool } from './tool-worker-pool.js';

/** The docs check's content work, run in the tool worker threads (time, size and memory limits). */
export function poolDocsRunner(pool: ToolWorkerPool): DocsTaskRunner {
  return {
    size: pool.size,
    analyzePage: (input, timeoutMs) => pool.run({ kind: 'analyze-page', ...input }, timeoutMs),
    buildConfig: (input, timeoutMs) => pool.run({ kind: 'site-config', ...input }, timeoutMs),
    openApiPages: (input, timeoutMs) => pool.run({ kind: 'openapi-pages', ...input }, timeoutMs),
  };
}
