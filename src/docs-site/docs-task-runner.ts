import type { TaskOutcome } from './task-outcome.js';
import type { PageAnalysis } from './page-analysis.js';
import type { ConfigBuild } from './site-config-types.js';
import type { OpenApiPages } from './openapi-pages.js';

/**
 * Where the content-dependent work of a check runs: MDX parsing, JSON and YAML. The
 * agent and the CLI pass a pool of worker threads with time and memory limits (see
 * agent/tools/tool-worker-pool.ts), so no page can stall the thread that answers
 * requests; every outcome other than `done` becomes a `check-limit` problem.
 */
export interface DocsTaskRunner {
  /** Tasks worth running at once. */
  readonly size: number;
  analyzePage(input: { path: string; text: string }, timeoutMs: number): Promise<TaskOutcome<PageAnalysis>>;
  buildConfig(input: { configPath: string; texts: Map<string, string | null> }, timeoutMs: number): Promise<TaskOutcome<ConfigBuild>>;
  openApiPages(input: { specText: string; directory: string }, timeoutMs: number): Promise<TaskOutcome<OpenApiPages>>;
}
