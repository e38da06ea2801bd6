/** Access-log import for visitor analytics: the engine behind `docwright analytics import`. */
export { importLogs, MAX_BATCH_SIZE } from './import-logs.js';
export { ImportAbortedError } from './import-aborted-error.js';
export type {
  FileFailure,
  ImportCounters,
  ImportHit,
  ImportOptions,
  ImportProgress,
  ImportSummary,
  MalformedLineExample,
  NotPageCounts,
  SendHits,
  SendResult,
} from './import-types.js';
export { openLogLines, OVERLONG_LINE_MARKER, type LogLines, type OpenLogLinesOptions } from './log-line-reader.js';
export { isGzipFile } from './log-file-stream.js';
export { LineIdentities } from './line-identity.js';
export { importWarnings, isUnreadable, RETENTION_SETTING, type ImportWarning } from './import-warnings.js';
export {
  isPageRequest,
  pageRequestVerdict,
  NOT_PAGE_REASONS,
  type NotPageReason,
  DEFAULT_SKIP_PREFIXES,
  ASSET_EXTENSIONS,
  type PageRequest,
  type PageRuleOptions,
} from './page-rule.js';
export { normalizePath, MAX_PATH_LENGTH } from './normalize-path.js';
export { parseCombinedLine } from './combined-log-parser.js';
export { createJsonLinesParser } from './json-lines-parser.js';
export { DEFAULT_FIELD_MAP, HIT_FIELDS, resolveFieldMap, type FieldMap, type HitField } from './field-map.js';
export { createLineParser, detectLogFormat, parseLogFormatChoice, LOG_FORMATS, type LogFormat, type LogFormatChoice } from './log-format.js';
export { parseCommonLogTimestamp, parseTimestampValue } from './log-timestamp.js';
export type { LogRecord, LineParseResult, LineParser } from './log-record.js';
export { createProgressBar, type ProgressBar, type ProgressBarOptions, type ProgressOutput } from './progress-bar.js';
export { formatImportSummary } from './format-import-summary.js';
