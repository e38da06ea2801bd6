import { parseCommonLogTimestamp } from './log-timestamp.js';
import { tokenizeLogLine, type LogToken } from './log-line-tokenizer.js';
import { parseRequestLine } from './request-line.js';
import { malformed, type LineParseResult } from './log-record.js';
import { salvageCombinedLine } from './salvage-combined-line.js';

const STATUS = /^[1-5]\d\d$/;

/**
 * Parses one line in the nginx/Apache "combined" format
 * `host ident user [time] "request" status bytes "referrer" "user-agent"`, and equally
 * the "common" format that stops after bytes. Fields after the user agent (nginx setups
 * often append `"$http_x_forwarded_for"`) are ignored, and a virtual-host field before
 * the client address (Apache `vhost_combined`) is tolerated, because the time field
 * anchors the layout rather than fixed positions. A line with a quote left open is
 * salvaged where possible and flagged `salvaged`.
 */
export function parseCombinedLine(line: string): LineParseResult {
  const tokenized = tokenizeLogLine(line);
  if (tokenized.ok) return parseTokens(line, tokenized.tokens, false);
  // A quote left open: first read the line as it is with the open field running to the
  // end (a cut-off user agent), then try the request-line salvage.
  const lenient = tokenizeLogLine(line, true);
  const result = lenient.ok ? parseTokens(line, lenient.tokens, true) : undefined;
  if (result?.ok === true) return result;
  return salvage(line) ?? malformed(tokenized.reason);
}

function parseTokens(line: string, tokens: LogToken[], salvaged: boolean): LineParseResult {
  let timeIndex = -1;
  let timestamp: number | undefined;
  for (let index = 0; index < tokens.length; index++) {
    const token = tokens[index];
    if (token?.kind !== 'bracketed') continue;
    timestamp = cachedTimestamp(token.value);
    if (timestamp !== undefined) {
      timeIndex = index;
      break;
    }
  }
  if (timestamp === undefined) return malformed('no valid [dd/Mon/yyyy:hh:mm:ss +zone] time field');
  if (timeIndex < 3) return malformed('expected client address, ident and user before the time field');

  const request = tokens[timeIndex + 1];
  if (request?.kind !== 'quoted') return malformed('expected a quoted request line after the time field');
  const statusText = tokens[timeIndex + 2]?.value;
  if (statusText === undefined || !STATUS.test(statusText)) return salvage(line) ?? malformed('expected a three-digit status after the request');

  const requestLine = parseRequestLine(request.value);
  return {
    ok: true,
    ...(salvaged ? { salvaged } : {}),
    record: {
      timestamp,
      method: requestLine?.method,
      target: requestLine?.target ?? '',
      status: Number(statusText),
      ip: clientAddress(tokens[timeIndex - 3]),
      referrer: optionalQuoted(tokens[timeIndex + 4]),
      userAgent: optionalQuoted(tokens[timeIndex + 5]),
      accept: undefined,
      visitorId: undefined,
    },
  };
}

/** A line with an unclosed quote, read as far as it can be (salvage-combined-line.ts). */
function salvage(line: string): LineParseResult | undefined {
  const record = salvageCombinedLine(line, cachedTimestamp);
  return record === undefined ? undefined : { ok: true, record, salvaged: true };
}

// Consecutive lines of a busy log share their second, so one remembered time saves most parsing.
let lastTimeText = '';
let lastTime: number | undefined;

function cachedTimestamp(text: string): number | undefined {
  if (text !== lastTimeText) {
    lastTimeText = text;
    lastTime = parseCommonLogTimestamp(text);
  }
  return lastTime;
}

function clientAddress(token: LogToken | undefined): string | undefined {
  if (token === undefined || token.value === '-' || token.value === '') return undefined;
  return token.value;
}

function optionalQuoted(token: LogToken | undefined): string | undefined {
  if (token?.kind !== 'quoted' || token.value === '-' || token.value === '') return undefined;
  return token.value;
}
