import { ChangeTracker } from './change-tracker.js';
import { resolveInWorkspace, type ResolvedPath } from './resolve-in-workspace.js';
import { resolveToolLimits, type ToolLimits } from './tool-limits.js';

/** What every tool function needs: where the workspace is, its caps, and the change log. */
export interface ToolContext {
  readonly workspace: string;
  readonly limits: ToolLimits;
  readonly changes: ChangeTracker;
}

export interface ToolContextOptions {
  workspace: string;
  limits?: Partial<ToolLimits>;
}

export function createToolContext(options: ToolContextOptions): ToolContext {
  return { workspace: options.workspace, limits: resolveToolLimits(options.limits), changes: new ChangeTracker() };
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
