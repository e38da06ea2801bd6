import { realpath, stat } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { InvalidArgumentError } from 'commander';
import { DocsChecker, type DocsCheckResult } from '../docs-site/docs-checker.js';
import { WorkspaceFiles } from '../agent/tools/workspace-files.js';
import { ToolWorkerPool } from '../agent/tools/tool-worker-pool.js';
import { docsCheckLimits, poolDocsRunner } from '../agent/tools/docs-task-runner-pool.js';
import { DEFAULT_TOOL_LIMITS } from '../agent/tools/tool-limits.js';
import { GitTreeFiles } from '../git/git-tree-files.js';
import { tryResolveCommit } from '../git/diff-between.js';
import { runGit } from '../git/run-git.js';

export interface DocsCheckRun {
  result: DocsCheckResult;
  /** The base's commit, when `--base` was given. */
  baseCommit: string | null;
}

export interface DocsCheckRunOptions {
  directory: string;
  base?: string;
  onProgress?: (checked: number, total: number) => void;
}

/**
 * `docwright docs check`: the same check the agent runs, on a directory of any
 * repository. With a base ref, the base's files are read from git (no checkout), so the
 * problems the working tree introduced are told apart from those the base had.
 */
export async function runDocsCheck(options: DocsCheckRunOptions): Promise<DocsCheckRun> {
  const directory = await realpath(options.directory).catch(() => {
    throw new InvalidArgumentError(`${options.directory} does not exist.`);
  });
  if (!(await stat(directory)).isDirectory()) throw new InvalidArgumentError(`${options.directory} is not a directory.`);
  let baseCommit: string | null = null;
  let base: (() => Promise<GitTreeFiles>) | undefined;
  if (options.base !== undefined) {
    const top = await runGit(['rev-parse', '--show-toplevel', '--show-prefix'], { cwd: directory, allowedExitCodes: [0, 128] });
    if (top.exitCode !== 0) throw new InvalidArgumentError(`--base needs ${options.directory} to be inside a git repository.`);
    const [repository = directory, prefix = ''] = top.stdout.split('\n');
    const commit = await tryResolveCommit(directory, options.base, '--base').catch((error: unknown) => {
      throw new InvalidArgumentError(error instanceof Error ? error.message : String(error));
    });
    if (commit === null) throw new InvalidArgumentError(`--base ${options.base} is not a commit of this repository (fetch it first in a shallow CI clone).`);
    baseCommit = commit;
    const tree = new GitTreeFiles(repository, commit, prefix.replace(/\/$/, ''));
    base = () => Promise.resolve(tree);
  }
  const limits = DEFAULT_TOOL_LIMITS;
  // No requests to answer here: every core parses pages.
  const workers = new ToolWorkerPool({ size: availableParallelism() });
  try {
    const checker = new DocsChecker({
      current: new WorkspaceFiles(directory, limits.maxQueryLength),
      ...(base === undefined ? {} : { base }),
      runner: poolDocsRunner(workers),
      limits: docsCheckLimits(limits),
      // A command run in CI has the whole run to itself.
      timeoutMs: 60 * 60_000,
      ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
    });
    return { result: await checker.check(), baseCommit };
  } finally {
    await workers.close();
  }
}
