import { formatCount } from './format-units.js';
import type { ImportSummary } from './import-types.js';

/** Where the server keeps its retention period; named in the hint for `timestamp_too_old`. */
export const RETENTION_SETTING = 'DOCWRIGHT_ANALYTICS_RETENTION_DAYS';

export interface ImportWarning {
  /** Stable, for scripts reading `--json`. */
  code: 'nothing_readable' | 'older_than_retention' | 'no_user_agent' | 'invalid_paths';
  message: string;
}

/**
 * What a user must know about an import beyond its counts: the cases where the counts
 * alone look like success, or like a mystery. docs/import.md lists them.
 */
export function importWarnings(summary: ImportSummary): ImportWarning[] {
  const warnings: ImportWarning[] = [];
  if (isUnreadable(summary)) {
    warnings.push({
      code: 'nothing_readable',
      message: `None of the ${formatCount(summary.lines)} lines read is a log line this importer understands, so nothing was imported. Check the format (--format combined, common or jsonl; --field for JSON lines).`,
    });
  }
  const tooOld = summary.rejectedByCode.timestamp_too_old ?? 0;
  if (tooOld > 0) {
    warnings.push({
      code: 'older_than_retention',
      message: `${formatCount(tooOld)} ${tooOld === 1 ? 'hit is' : 'hits are'} older than the server's retention period and ${tooOld === 1 ? 'was' : 'were'} refused (timestamp_too_old). To keep older logs, raise ${RETENTION_SETTING} on the server (default 400 days) before importing; a horizon already pruned stays closed.`,
    });
  }
  if (summary.hitsWithoutUserAgent > 0) {
    const all = summary.hitsWithoutUserAgent === summary.hits;
    warnings.push({
      code: 'no_user_agent',
      message: `${all ? 'All' : formatCount(summary.hitsWithoutUserAgent)} of the ${formatCount(summary.hits)} page hits have no user agent (a common-format log?). The server classes a hit without a user agent as bot, so these count as neither human nor AI visitors. Import the combined format to tell people from AI.`,
    });
  }
  const invalidPaths = summary.rejectedByCode.invalid_path ?? 0;
  if (invalidPaths > 0) {
    warnings.push({
      code: 'invalid_paths',
      message: `${formatCount(invalidPaths)} hits were refused for their path (invalid_path); the rejected examples say why.`,
    });
  }
  return warnings;
}

/** Every line read was malformed: the import did nothing useful and must not look like it succeeded. */
export function isUnreadable(summary: ImportSummary): boolean {
  return summary.lines > 0 && summary.malformed === summary.lines;
}
