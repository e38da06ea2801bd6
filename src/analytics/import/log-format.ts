import { badRequest } from '../../core/errors.js';
import { parseCombinedLine } from './combined-log-parser.js';
import { createJsonLinesParser } from './json-lines-parser.js';
import type { FieldMap } from './field-map.js';
import type { LineParser } from './log-record.js';

/** `common` is `combined` without referrer and user agent; one parser reads both. */
export const LOG_FORMATS = ['combined', 'common', 'json'] as const;

export type LogFormat = (typeof LOG_FORMATS)[number];

export type LogFormatChoice = LogFormat | 'auto';

/**
 * Guesses the format from one line: an object is JSON lines, a line the combined
 * parser accepts is combined (common lines are accepted by it too). Undefined when the
 * line is neither, so the caller can look at the next one.
 */
export function detectLogFormat(line: string): LogFormat | undefined {
  const text = line.trim();
  if (text === '') return undefined;
  if (text.startsWith('{')) return 'json';
  return parseCombinedLine(text).ok ? 'combined' : undefined;
}

export function createLineParser(format: LogFormat, fieldMap?: FieldMap): LineParser {
  switch (format) {
    case 'combined':
    case 'common':
      return parseCombinedLine;
    case 'json':
      return createJsonLinesParser(fieldMap);
  }
}

export function parseLogFormatChoice(value: string): LogFormatChoice {
  if (value === 'auto' || (LOG_FORMATS as readonly string[]).includes(value)) return value as LogFormatChoice;
  throw badRequest('invalid_log_format', `Unknown log format "${value}"; expected auto, ${LOG_FORMATS.join(', ')}.`);
}
