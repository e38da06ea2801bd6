import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DocsChecker, type DocsCheckResult } from '../../src/docs-site/docs-checker.js';
import type { DocsProblem } from '../../src/docs-site/docs-problem.js';
import { WorkspaceFiles } from '../../src/agent/tools/workspace-files.js';
import { poolDocsRunner } from '../../src/agent/tools/docs-task-runner-pool.js';
import type { ToolWorkerPool } from '../../src/agent/tools/tool-worker-pool.js';
import { GitTreeFiles } from '../../src/git/git-tree-files.js';
import { createRepository, fixtureGit, temporaryDirectory } from '../git/git-fixtures.js';

export const TEST_LIMITS = { maxPages: 50_000, maxPageBytes: 512 * 1024, maxConfigBytes: 8 * 1024 * 1024, pageTimeoutMs: 10_000, maxProblemsPerPage: 500 };

/**
 * A documentation site in a real git repository: `files` are committed on `main` (the
 * base), then the test changes the working tree and checks it against that commit.
 */
export class SiteFixture {
  readonly directory: string;
  readonly base: string;
  private readonly cleanup: () => void;

  constructor(files: Record<string, string>) {
    const temporary = temporaryDirectory('docwright-site-');
    this.directory = createRepository(join(temporary.path, 'repo'), files);
    this.base = fixtureGit(this.directory, 'rev-parse', 'HEAD');
    this.cleanup = temporary.cleanup;
  }

  put(path: string, content: string): void {
    mkdirSync(dirname(join(this.directory, path)), { recursive: true });
    writeFileSync(join(this.directory, path), content);
  }

  delete(path: string): void {
    rmSync(join(this.directory, path));
  }

  checker(workers: ToolWorkerPool, options: { withBase?: boolean; root?: string } = {}): DocsChecker {
    const root = options.root === undefined ? this.directory : join(this.directory, options.root);
    return new DocsChecker({
      current: new WorkspaceFiles(root),
      ...(options.withBase === true ? { base: async () => new GitTreeFiles(this.directory, this.base, options.root ?? '') } : {}),
      runner: poolDocsRunner(workers),
      limits: TEST_LIMITS,
      timeoutMs: 60_000,
    });
  }

  remove(): void {
    this.cleanup();
  }
}

/** `path:line kind message` per problem, for readable equality assertions. */
export function described(problems: readonly DocsProblem[]): string[] {
  return problems.map((problem) => `${problem.path}${problem.line === undefined ? '' : `:${problem.line}`} ${problem.kind} ${problem.message}`);
}

export async function problemsOf(fixture: SiteFixture, workers: ToolWorkerPool): Promise<string[]> {
  const result: DocsCheckResult = await fixture.checker(workers).check();
  return described(result.introduced);
}
