import type { LineRangeRequest, LineRangeResult } from './line-range.js';
import type { PageAnalysis } from '../../docs-site/page-analysis.js';
import type { ConfigBuild } from '../../docs-site/site-config-types.js';
import type { OpenApiPages } from '../../docs-site/openapi-pages.js';

/** Work a tool hands to a tool worker thread (see tool-worker-pool.ts). */
export type ToolTask =
  | { kind: 'analyze-page'; path: string; text: string }
  | { kind: 'site-config'; configPath: string; texts: Map<string, string | null> }
  | { kind: 'openapi-pages'; specText: string; directory: string }
  | ({ kind: 'read-lines'; absolute: string; shown: string; maxFileBytes: number; maxResultBytes: number } & LineRangeRequest)
  | { kind: 'edit'; absolute: string; shown: string; maxFileBytes: number; oldString: string; newString: string; replaceAll: boolean };

export type ToolTaskKind = ToolTask['kind'];

/** What each kind of task answers. */
export interface ToolTaskResults {
  'analyze-page': PageAnalysis;
  'site-config': ConfigBuild;
  'openapi-pages': OpenApiPages;
  'read-lines': LineRangeResult;
  /** The edited file as UTF-8 (transferred, not copied: it may be megabytes) and the line of the change. */
  edit: { bytes: Uint8Array; line: number; replacements: number };
}

export type TaskOf<Kind extends ToolTaskKind> = Extract<ToolTask, { kind: Kind }>;

export interface ToWorker {
  type: 'task';
  id: number;
  task: ToolTask;
}

export type FromWorker =
  | { type: 'ready' }
  | { type: 'done'; id: number; result: unknown }
  /** The task failed the way a tool fails (a ToolFailure): the message is for the model. */
  | { type: 'failure'; id: number; message: string }
  /** Anything else went wrong: a bug or the environment. */
  | { type: 'error'; id: number; message: string };
