import { tokenizeLogLine, type LogToken } from './log-line-tokenizer.js';
import type { LogRecord } from './log-record.js';

// Method, target, optional version, the closing quote that may be missing, then the status.
const REQUEST_AND_STATUS = /^\s*"([A-Za-z]{1,16}) (\S+?)(?: HTTP\/\d(?:\.\d)?)?"?\s+([1-5]\d\d)(?=\s|$)(.*)$/;

/**
 * The fallback for a combined/common line the strict parser refused because a quote is
 * not closed: a request line without its closing quote (`"GET /docs HTTP/1.1 200 …`) or
 * a user agent or referrer cut off or broken by an unescaped quote. Everything that can
 * still be read unambiguously is kept: the time field, the client address (third field
 * before the time), a request line whose target has no spaces, the status, and the
 * referrer and user agent, where an unterminated one runs to the end of the line.
 * Returns undefined when even that is not there, and the line stays malformed.
 */
export function salvageCombinedLine(line: string, parseTime: (text: string) => number | undefined): LogRecord | undefined {
  let open = line.indexOf('[');
  while (open >= 0) {
    const close = line.indexOf(']', open + 1);
    if (close < 0) return undefined;
    const timestamp = parseTime(line.slice(open + 1, close));
    if (timestamp !== undefined) return salvageAfterTime(line, open, close, timestamp);
    open = line.indexOf('[', close + 1);
  }
  return undefined;
}

function salvageAfterTime(line: string, open: number, close: number, timestamp: number): LogRecord | undefined {
  const before = line
    .slice(0, open)
    .split(/[ \t]+/)
    .filter((field) => field !== '');
  if (before.length < 3) return undefined;
  const match = REQUEST_AND_STATUS.exec(line.slice(close + 1));
  if (match === null) return undefined;
  const [, method, target, status, rest = ''] = match;
  const after = tokenizeLogLine(rest, true);
  const tokens = after.ok ? after.tokens : [];
  const ip = before[before.length - 3];
  return {
    timestamp,
    method,
    target: target ?? '',
    status: Number(status),
    ip: ip === '-' ? undefined : ip,
    // tokens[0] is the response size.
    referrer: optionalQuoted(tokens[1]),
    userAgent: optionalQuoted(tokens[2]),
    accept: undefined,
    visitorId: undefined,
  };
}

function optionalQuoted(token: LogToken | undefined): string | undefined {
  if (token?.kind !== 'quoted' || token.value === '-' || token.value === '') return undefined;
  return token.value;
}
