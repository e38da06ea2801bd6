import { ChangeTracker } from './change-tracker.js';
import { resolveInWorkspace, type ResolvedPath } from './resolve-in-workspace.js';
import { resolveToolLimits, type ToolLimits } from './tool-limits.js';
import { describeRefusal, WritePolicy } from './write-policy.js';
import { RefusalLog } from './refusal-log.js';
import { ToolFailure } from './tool-failure.js';
import { ToolWorkerPool } from './tool-worker-pool.js';
import { DocsChecker, type CommitBase } from '../../docs-site/docs-checker.js';
import type { SiteSource } from '../../docs-site/site-source.js';
import type { BaseIndexCache } from '../../docs-site/base-index-cache.js';
import { WorkspaceFiles } from './workspace-files.js';
import { docsCheckLimits, poolDocsRunner } from './docs-task-runner-pool.js';

/**
 * What every tool function needs: where the workspace is, its caps, the change log, and
 * the worker threads that run content-dependent work off the main thread.
 */
export interface ToolContext {
  readonly workspace: string;
  readonly limits: ToolLimits;
  readonly changes: ChangeTracker;
  /** What the changing tools may touch; a promise while the workspace is being cloned. */
  readonly policy: WritePolicy | Promise<WritePolicy>;
  readonly refusals: RefusalLog;
  readonly workers: ToolWorkerPool;
  /** The docs check's index of the workspace, kept up to date as the tools change files. */
  readonly docs: DocsChecker;
}

export interface ToolContextOptions {
  workspace: string;
  limits?: Partial<ToolLimits>;
  /** Defaults to the built-in policy with no project additions. */
  policy?: WritePolicy | Promise<WritePolicy>;
  /** Default: a pool of its own, started on first use; whoever created the context closes it. */
  workers?: ToolWorkerPool;
  /**
   * The files the job started from (its base ref), whose problems `check_docs` reports
   * as pre-existing. Without it every problem counts as new. Named by its commit, its
   * index can come from `docsBases`, and the workspace's is derived from it.
   */
  docsBase?: () => Promise<SiteSource | CommitBase>;
  /** Base indexes kept by the process for the next job on the same commit. */
  docsBases?: BaseIndexCache;
}

export function createToolContext(options: ToolContextOptions): ToolContext {
  const limits = resolveToolLimits(options.limits);
  const workers = options.workers ?? new ToolWorkerPool();
  const docs = new DocsChecker({
    current: new WorkspaceFiles(options.workspace, limits.maxQueryLength),
    ...(options.docsBase === undefined ? {} : { base: options.docsBase }),
    ...(options.docsBases === undefined ? {} : { keptBases: options.docsBases }),
    runner: poolDocsRunner(workers),
    limits: docsCheckLimits(limits),
    timeoutMs: limits.checkDocsTimeoutMs,
  });
  return {
    workspace: options.workspace,
    limits,
    changes: new ChangeTracker(),
    policy: options.policy ?? new WritePolicy(),
    refusals: new RefusalLog(),
    workers,
    docs,
  };
}

/** Throws the policy's refusal (and logs it for the job's result) unless `relative` may be changed. */
export async function assertWritable(context: ToolContext, relative: string): Promise<void> {
  const verdict = (await context.policy).check(relative);
  if (verdict.allowed) return;
  context.refusals.record(relative, verdict.reason);
  throw new ToolFailure(describeRefusal(relative, verdict.reason));
}

export function resolveForRead(context: ToolContext, relativePath: string): Promise<ResolvedPath> {
  return resolveInWorkspace(context.workspace, relativePath, { maxPathLength: context.limits.maxPathLength });
}

export function resolveForWrite(context: ToolContext, relativePath: string): Promise<ResolvedPath> {
  return resolveInWorkspace(context.workspace, relativePath, {
    forWrite: true,
    maxPathLength: context.limits.maxPathLength,
  });
}
