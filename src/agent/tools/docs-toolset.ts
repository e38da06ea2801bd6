import { tool, type ToolSet } from 'ai';
import { z } from 'zod';
import { createToolContext, type ToolContext } from './tool-context.js';
import type { ToolLimits } from './tool-limits.js';
import type { ToolWorkerPool } from './tool-worker-pool.js';
import type { FileChange } from './change-tracker.js';
import type { SiteSource } from '../../docs-site/site-source.js';
import type { CommitBase } from '../../docs-site/docs-checker.js';
import type { BaseIndexCache } from '../../docs-site/base-index-cache.js';
import type { DocsCheckResult } from '../../docs-site/docs-checker.js';
import { isToolFailure } from './tool-failure.js';
import { createRedactor } from './redact-secrets.js';
import { listFiles } from './list-files.js';
import { readFile } from './read-file.js';
import { searchFiles } from './search-files.js';
import { writeFile } from './write-file.js';
import { editFile } from './edit-file.js';
import { deleteFile } from './delete-file.js';
import { moveFile } from './move-file.js';
import { checkDocs, checkDocsInFull } from './check-docs.js';
import { WritePolicy, type RefusedFile, type WritePolicySettings } from './write-policy.js';
import { findConfigReferences } from './docs-config-references.js';
import { ToolCallQueue } from './tool-call-queue.js';
import { capToolResult, type CappedToolResult } from './cap-tool-result.js';

export interface DocsToolsetOptions {
  /** The job's checked-out documentation repository; every path is relative to it. */
  workspace: string;
  /** Credential values known to the process; replaced by `[REDACTED]` in every tool result. */
  secrets?: string[];
  limits?: Partial<ToolLimits>;
  /** Told about errors that are bugs or environment trouble rather than model mistakes. */
  onUnexpectedError?: (toolName: string, error: unknown) => void;
  /**
   * Settles when the workspace is in place (the clone runs while the model thinks).
   * Every tool waits for it; if it fails, tools answer with an error and the caller is
   * expected to stop the run.
   */
  ready?: Promise<unknown>;
  /** The project's additions to the built-in write policy. */
  writePolicy?: WritePolicySettings;
  /**
   * Worker threads to share with other toolsets; the caller then stops them. By default
   * the toolset starts its own on first use, and `close()` stops them.
   */
  workers?: ToolWorkerPool;
  /** The files of the job's base ref: `check_docs` reports their problems as pre-existing. */
  docsBase?: () => Promise<SiteSource | CommitBase>;
  /** Base indexes the process keeps for later jobs on the same commit (see docs-site/base-index-cache.ts). */
  docsBases?: BaseIndexCache;
}

/**
 * What the model receives when a call fails; the run goes on. `ok: false` is how the
 * agent's step summaries recognise a failure reported as a result.
 */
export interface ToolErrorResult {
  ok: false;
  error: string;
}

export interface DocsToolset {
  tools: ToolSet;
  /** Workspace-relative paths the tools wrote, edited, deleted or moved (both ends), sorted. */
  changedFiles: () => string[];
  /** The last change to each changed path, in the order changes happened. */
  changes: () => FileChange[];
  /**
   * The final check of a run, split into the problems the run introduced and those the
   * base already had. It reuses the index `check_docs` calls built, updated with the
   * files changed since.
   */
  checkDocs: () => Promise<DocsCheckResult>;
  /** The write policy of this run, built from the checkout as cloned. */
  policy: () => Promise<WritePolicy>;
  /** Paths the tools refused to change because of the write policy, sorted. */
  refusedFiles: () => RefusedFile[];
  /** Stops the toolset's own worker threads; a tool call still using them fails. Call it when the turn ends. */
  close: () => Promise<void>;
}

async function workspaceReady(ready: Promise<unknown>): Promise<boolean> {
  return ready.then(
    () => true,
    () => false,
  );
}

const pathField = z.string().min(1).describe('Path relative to the workspace root, with "/" separators, e.g. "guides/intro.mdx".');

/**
 * The policy reads the site configuration as cloned (its `$ref` files and OpenAPI specs
 * are allowed), before any tool runs: an edit cannot widen it. Without a checkout, the
 * references are simply not known.
 */
async function loadPolicy(workspace: string, ready: Promise<unknown> | undefined, settings: WritePolicySettings | undefined): Promise<WritePolicy> {
  if (ready !== undefined) await ready;
  const references = await findConfigReferences(workspace);
  return new WritePolicy(settings, references);
}

export function createDocsToolset(options: DocsToolsetOptions): DocsToolset {
  const policy = loadPolicy(options.workspace, options.ready, options.writePolicy).catch(() => new WritePolicy(options.writePolicy));
  const context = createToolContext({
    workspace: options.workspace,
    limits: options.limits,
    policy,
    workers: options.workers,
    ...(options.docsBase === undefined ? {} : { docsBase: options.docsBase }),
    ...(options.docsBases === undefined ? {} : { docsBases: options.docsBases }),
  });
  const redact = createRedactor(options.secrets ?? []);
  const queue = new ToolCallQueue();
  const perform =
    <Input, Output>(name: string, operation: (context: ToolContext, input: Input) => Promise<Output>) =>
    async (input: Input): Promise<Output | ToolErrorResult | CappedToolResult> => {
      if (options.ready !== undefined && !(await workspaceReady(options.ready))) {
        return { ok: false, error: 'The repository could not be checked out, so no file can be used; the run is stopping.' };
      }
      try {
        return capToolResult(redact(await operation(context, input)), context.limits.maxResultBytes);
      } catch (error) {
        if (isToolFailure(error)) return capToolResult(redact<ToolErrorResult>({ ok: false, error: error.message }), context.limits.maxResultBytes);
        options.onUnexpectedError?.(name, error);
        // The raw message may carry host paths; the model only needs to know it was not its fault.
        return { ok: false, error: `${name} failed because of an internal error; the operation may not have completed. Try again or use another approach.` };
      }
    };
  // The queue is entered before anything is awaited (the ready wait included), so the
  // calls of one step keep the order the model issued them in (see tool-call-queue.ts).
  const run =
    <Input, Output>(name: string, kind: 'read' | 'change', operation: (context: ToolContext, input: Input) => Promise<Output>) =>
    (input: Input): Promise<Output | ToolErrorResult | CappedToolResult> => {
      const call = perform(name, operation);
      return queue.enter(kind, () => call(input));
    };
  const { limits } = context;
  const resultKb = Math.round(limits.maxResultBytes / 1024);

  const tools = {
    list_files: tool({
      description: `List files in the documentation repository matching a glob (default "**/*"), sorted. At most ${limits.maxListResults} paths and ${resultKb} KB per call; when there are more, "truncated" is true and "next" says how to list the rest (offset). .git is never listed.`,
      inputSchema: z.object({
        pattern: z.string().optional().describe('Glob relative to the workspace root, e.g. "guides/**/*.mdx".'),
        limit: z.number().int().min(1).optional().describe(`Maximum paths to return (at most ${limits.maxListResults}).`),
        offset: z.number().int().min(0).optional().describe('Matching paths to skip, to read on after a truncated list.'),
      }),
      execute: run('list_files', 'read', listFiles),
    }),
    read_file: tool({
      description: `Read a text file's lines, numbered as by cat -n: each line of content is its line number right-aligned in six places, a tab, then the line's text. The number and the tab are not part of the file; leave them out of edit_file's oldString. Reads from startLine (default 1) to endLine (default the last line), as many lines as fit in ${resultKb} KB; when not all fit, "truncated" is true and "next" says where to read on. totalLines is the file's number of lines.`,
      inputSchema: z.object({
        path: pathField,
        startLine: z.number().int().min(1).optional().describe('First line to read, 1-based (default 1).'),
        endLine: z.number().int().min(1).optional().describe('Last line to read, inclusive (default the last line of the file).'),
      }),
      execute: run('read_file', 'read', readFile),
    }),
    search: tool({
      description: `Search file contents line by line. Literal text by default; set regex for a JavaScript regular expression. Case-insensitive unless caseSensitive is true. Returns up to ${limits.maxSearchResults} matches {path, line, text} and ${resultKb} KB per call; when there are more, "truncated" is true and "next" says how to see them (offset, or a narrower query or glob).`,
      inputSchema: z.object({
        query: z.string().min(1),
        regex: z.boolean().optional(),
        caseSensitive: z.boolean().optional(),
        glob: z.string().optional().describe('Only search files matching this glob, e.g. "**/*.mdx".'),
        offset: z.number().int().min(0).optional().describe('Matches to skip, to read on after a truncated result.'),
      }),
      execute: run('search', 'read', searchFiles),
    }),
    write_file: tool({
      description: `Create or replace a file with the given content (at most ${limits.maxWriteBytes} bytes); parent directories are created. Prefer edit_file for changes to existing files. Only documentation content may be changed (pages, images and static assets, docs.json/mint.json and the files they reference); CI, build, package and dot files are refused.`,
      inputSchema: z.object({ path: pathField, content: z.string() }),
      execute: run('write_file', 'change', writeFile),
    }),
    edit_file: tool({
      description:
        'Replace exact text in a file. oldString must match the file exactly, whitespace and indentation included (copy it from read_file without the line-number prefixes), and occur exactly once: include surrounding lines to make it unique. With replaceAll: true every occurrence is replaced and the result says how many. When oldString is not found, the error shows the closest text in the file with its line numbers; when it occurs more than once, the error names the lines.',
      inputSchema: z.object({
        path: pathField,
        oldString: z.string().min(1),
        newString: z.string(),
        replaceAll: z.boolean().optional().describe('Replace every occurrence of oldString instead of exactly one.'),
      }),
      execute: run('edit_file', 'change', editFile),
    }),
    delete_file: tool({
      description: 'Delete one file (not a directory).',
      inputSchema: z.object({ path: pathField }),
      execute: run('delete_file', 'change', deleteFile),
    }),
    move_file: tool({
      description:
        "Move or rename one file. Fails if the target already exists; parent directories of the target are created. Navigation entries in docs.json (and its $ref files) and internal links that point at the moved page are updated, and the moved page's relative links are fixed for its new folder; with redirect: true, links are left as they are and a redirect from the old path is added to docs.json instead. The result lists every file it changed.",
      inputSchema: z.object({
        from: pathField,
        to: pathField,
        redirect: z.boolean().optional().describe('Keep links to the old path and add a redirect in docs.json instead of rewriting them.'),
      }),
      execute: run('move_file', 'change', moveFile),
    }),
    check_docs: tool({
      description:
        'Check the documentation the way Mintlify builds it: MDX syntax errors, invalid YAML frontmatter, broken internal links (redirects, .mintignore, versions, languages and OpenAPI pages taken into account), and docs.json/mint.json navigation entries without a page. newProblems lists what your changes broke against the base branch: fix all of it. preExisting only counts problems that were already there; leave them unless the instruction asks. Run it after editing; after the first call it only re-checks what changed.',
      inputSchema: z.object({}),
      // It reads the index the changing tools update, so it takes its turn with them.
      execute: run('check_docs', 'change', (toolContext: ToolContext) => checkDocs(toolContext)),
    }),
  } satisfies ToolSet;

  return {
    tools,
    changedFiles: () => context.changes.paths(),
    changes: () => context.changes.changes(),
    // After every call still running: a call the run gave up on may still be writing.
    checkDocs: () => queue.enter('change', async () => redact(await checkDocsInFull(context))),
    policy: () => policy,
    refusedFiles: () => context.refusals.list(),
    close: async () => {
      if (options.workers === undefined) await context.workers.close();
    },
  };
}
