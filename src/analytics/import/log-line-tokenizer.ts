import { unescapeLogString } from './log-string-escapes.js';

export type LogTokenKind = 'bare' | 'quoted' | 'bracketed';

export interface LogToken {
  kind: LogTokenKind;
  value: string;
}

export type TokenizeResult = { ok: true; tokens: LogToken[] } | { ok: false; reason: string };

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;

/**
 * Splits a web-server log line into whitespace-separated fields, where a field may be
 * "quoted" (a backslash escapes the next character, so `\"` does not end it) or
 * [bracketed]. This is the shape shared by the common, combined and vhost variants.
 * `lenient` lets an unterminated quoted field run to the end of the line instead of
 * failing (see salvage-combined-line.ts).
 */
export function tokenizeLogLine(line: string, lenient = false): TokenizeResult {
  const tokens: LogToken[] = [];
  const length = line.length;
  let index = 0;
  while (index < length) {
    const code = line.charCodeAt(index);
    if (code === 0x20 || code === 0x09) {
      index++;
      continue;
    }
    if (code === QUOTE) {
      let end = index + 1;
      while (end < length) {
        const inner = line.charCodeAt(end);
        if (inner === BACKSLASH) end += 2;
        else if (inner === QUOTE) break;
        else end++;
      }
      if (end >= length) {
        if (!lenient) return { ok: false, reason: 'unterminated quoted field' };
        // Salvaging a line whose last quote is missing: the field runs to the end of the line.
        tokens.push({ kind: 'quoted', value: unescapeLogString(line.slice(index + 1)) });
        break;
      }
      tokens.push({ kind: 'quoted', value: unescapeLogString(line.slice(index + 1, end)) });
      index = end + 1;
      continue;
    }
    if (code === OPEN_BRACKET) {
      const end = line.indexOf(']', index + 1);
      if (end < 0) return { ok: false, reason: 'unterminated [bracketed] field' };
      tokens.push({ kind: 'bracketed', value: line.slice(index + 1, end) });
      index = end + 1;
      continue;
    }
    let end = index + 1;
    while (end < length) {
      const inner = line.charCodeAt(end);
      if (inner === 0x20 || inner === 0x09) break;
      end++;
    }
    tokens.push({ kind: 'bare', value: line.slice(index, end) });
    index = end;
  }
  return { ok: true, tokens };
}
