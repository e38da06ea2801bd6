import type { ToolContext } from './tool-context.js';
import type { DocsCheckReport } from './docs-problem.js';
import type { DocsCheckResult } from '../../docs-site/docs-checker.js';
import { jsonBytes } from './json-size.js';

/**
 * `check_docs`: the problems the run's changes introduced, first and in full (up to the
 * cap), and the ones the base ref already had as a count by kind — the model fixes what
 * it broke and is not sent chasing old noise. The index behind it (see
 * docs-site/site-state.ts) is built on the first call and updated with the files the
 * tools changed since, so a check after an edit parses only the edited pages and judges
 * again only the links that could have changed.
 */
export async function checkDocs(context: ToolContext): Promise<DocsCheckReport> {
  return reportOf(await checkDocsInFull(context), context.limits.maxProblems, context.limits.maxResultBytes);
}

/** The whole result, for the final check of a turn. */
export function checkDocsInFull(context: ToolContext): Promise<DocsCheckResult> {
  return context.docs.check(context.changes.takePending());
}

// The counts, the note and the closing `limit` problem.
const REPORT_OVERHEAD_BYTES = 1500;

/** The report for the model: new problems in order, as many as `maxProblems` and one result's bytes allow. */
export function reportOf(result: DocsCheckResult, maxProblems: number, maxResultBytes = Number.POSITIVE_INFINITY): DocsCheckReport {
  const newProblems: DocsCheckReport['newProblems'] = [];
  let bytes = REPORT_OVERHEAD_BYTES + jsonBytes(result.existingByKind);
  for (const problem of result.introduced.slice(0, maxProblems)) {
    bytes += jsonBytes(problem) + 1;
    if (bytes > maxResultBytes) break;
    newProblems.push(problem);
  }
  const listed = newProblems.length;
  const report: DocsCheckReport = {
    newProblems,
    preExisting: { total: result.existing.length, byKind: result.existingByKind },
    pagesChecked: result.pagesChecked,
    truncated: result.truncated || result.introduced.length > listed,
  };
  if (result.introduced.length > listed) {
    newProblems.push({
      path: '.',
      kind: 'limit',
      message: `${result.introduced.length} new problems; only the first ${listed} are listed. Fix these and run check_docs again.`,
    });
  }
  if (result.baseFailed) report.note = 'The base ref could not be compared against, so every problem is listed as new.';
  return report;
}
