import type { ToolContext } from './tool-context.js';
import type { DocsCheckReport } from './docs-problem.js';
import type { DocsCheckResult } from '../../docs-site/docs-checker.js';

/**
 * `check_docs`: the problems the run's changes introduced, first and in full (up to the
 * cap), and the ones the base ref already had as a count by kind — the model fixes what
 * it broke and is not sent chasing old noise. The index behind it (see
 * docs-site/site-state.ts) is built on the first call and updated with the files the
 * tools changed since, so a check after an edit parses only the edited pages and judges
 * again only the links that could have changed.
 */
export async function checkDocs(context: ToolContext): Promise<DocsCheckReport> {
  return reportOf(await checkDocsInFull(context), context.limits.maxProblems);
}

/** The whole result, for the final check of a turn. */
export function checkDocsInFull(context: ToolContext): Promise<DocsCheckResult> {
  return context.docs.check(context.changes.takePending());
}

export function reportOf(result: DocsCheckResult, maxProblems: number): DocsCheckReport {
  const newProblems = result.introduced.slice(0, maxProblems);
  const report: DocsCheckReport = {
    newProblems,
    preExisting: { total: result.existing.length, byKind: result.existingByKind },
    pagesChecked: result.pagesChecked,
    truncated: result.truncated || result.introduced.length > newProblems.length,
  };
  if (result.introduced.length > newProblems.length) {
    newProblems.push({
      path: '.',
      kind: 'limit',
      message: `${result.introduced.length} new problems; only the first ${maxProblems} are listed. Fix these and run check_docs again.`,
    });
  }
  if (result.baseFailed) report.note = 'The base ref could not be compared against, so every problem is listed as new.';
  return report;
}
