import { Command } from 'commander';
import type { DocsProblem } from '../../docs-site/docs-problem.js';
import { runDocsCheck } from '../docs-check-run.js';
import { createWalkProgress } from '../analytics-walk-progress.js';
import { printJson } from '../output.js';

/** One problem as `docs check --json` prints it. */
interface JsonProblem {
  file: string;
  line: number | null;
  code: string;
  message: string;
  new: boolean;
}

export function docsCommand(): Command {
  const command = new Command('docs').description('Work with a documentation repository on disk (no server needed).');

  command
    .command('check')
    .description(
      'Check a Mintlify docs site the way Mintlify builds it: MDX syntax, frontmatter, internal links (redirects, .mintignore, versions, languages, OpenAPI pages) and navigation. Exits 1 when there is a new problem (any problem without --base), 0 otherwise.',
    )
    .argument('[dir]', 'the repository or docs folder to check', '.')
    .option('--base <ref>', 'compare with this git ref (branch, tag or commit): only problems the working tree introduced count')
    .option('--json', 'print {"pagesChecked", "problems": [{"file", "line", "code", "message", "new"}]} on stdout')
    .option('--show-existing', 'also list the problems the base already had (they are only counted by default)')
    .addHelpText(
      'after',
      '\nIn CI, fetch the base first (actions/checkout with fetch-depth: 0, or `git fetch origin main`), then:\n  docwright docs check docs --base origin/main\n',
    )
    .action(async (directory: string, options: { base?: string; json?: boolean; showExisting?: boolean }) => {
      const progress = createWalkProgress(process.stderr, Date.now, 'docs check', ['page', 'pages checked', 'found']);
      const run = await runDocsCheck({
        directory,
        ...(options.base === undefined ? {} : { base: options.base }),
        onProgress: (checked, total) => progress.update(checked, total),
      });
      progress.finish();
      const { result } = run;
      if (options.json) {
        const problems = [...result.introduced.map((problem) => toJson(problem, true)), ...result.existing.map((problem) => toJson(problem, false))];
        printJson({ pagesChecked: result.pagesChecked, problems });
      } else {
        printHuman(run.result, options.base, run.baseCommit, options.showExisting === true);
      }
      if (result.introduced.length > 0) process.exitCode = 1;
    });

  return command;
}

function toJson(problem: DocsProblem, isNew: boolean): JsonProblem {
  return { file: problem.path, line: problem.line ?? null, code: problem.kind, message: problem.message, new: isNew };
}

function printHuman(
  result: Awaited<ReturnType<typeof runDocsCheck>>['result'],
  base: string | undefined,
  baseCommit: string | null,
  showExisting: boolean,
): void {
  const out = (line = ''): void => void process.stdout.write(`${line}\n`);
  const against = base === undefined ? '' : ` against ${base} (${baseCommit?.slice(0, 12)})`;
  out(`Checked ${result.pagesChecked.toLocaleString('en-US')} ${result.pagesChecked === 1 ? 'page' : 'pages'}${against}.`);
  const label = base === undefined ? 'problem' : 'new problem';
  if (result.introduced.length === 0) out(base === undefined ? 'No problems.' : 'No new problems.');
  else {
    out();
    out(`${result.introduced.length} ${label}${result.introduced.length === 1 ? '' : 's'}:`);
    for (const problem of result.introduced) out(formatProblem(problem));
  }
  if (result.existing.length > 0) {
    const counts = Object.entries(result.existingByKind)
      .map(([kind, count]) => `${count} ${kind}`)
      .join(', ');
    out();
    out(
      `${result.existing.length} pre-existing ${result.existing.length === 1 ? 'problem' : 'problems'} already on ${base} (${counts})${showExisting ? ':' : '; --show-existing lists them.'}`,
    );
    if (showExisting) for (const problem of result.existing) out(formatProblem(problem));
  }
}

function formatProblem(problem: DocsProblem): string {
  return `  ${problem.path}${problem.line === undefined ? '' : `:${problem.line}`}  ${problem.kind}  ${problem.message}`;
}
