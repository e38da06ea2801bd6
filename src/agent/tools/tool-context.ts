import { ChangeTracker } from './change-tracker.js';
import { resolveInWorkspace, type ResolvedPath } from './resolve-in-workspace.js';
import { resolveToolLimits, type ToolLimits } from './tool-limits.js';
import { ToolWorkerPool } from './tool-worker-pool.js';

/**
 * What every tool function needs: where the workspace is, its caps, the change log, and
 * the worker threads that run content-dependent work off the main thread.
 */
export interface ToolContext {
  readonly workspace: string;
  readonly limits: ToolLimits;
  readonly changes: ChangeTracker;
  readonly workers: ToolWorkerPool;
}

export interface ToolContextOptions {
  workspace: string;
  limits?: Partial<ToolLimits>;
  /** Default: a pool of its own, started on first use; whoever created the context closes it. */
  workers?: ToolWorkerPool;
}

export function createToolContext(options: ToolContextOptions): ToolContext {
  return {
    workspace: options.workspace,
    limits: resolveToolLimits(options.limits),
    changes: new ChangeTracker(),
    workers: options.workers ?? new ToolWorkerPool(),
  };
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
