import { resolveFieldMap, type FieldMap, type ResolvedFieldMap } from './field-map.js';
import { parseTimestampValue } from './log-timestamp.js';
import { parseRequestLine } from './request-line.js';
import { malformed, type LineParseResult, type LineParser } from './log-record.js';

const REQUEST_LINE = /^[A-Za-z]{1,16} \S/;

/**
 * A parser for JSON lines (one object per line). Logs without a method or status, as
 * application-written page-view logs often are, are taken to be successful GETs; a
 * line without a usable timestamp or path is malformed.
 */
export function createJsonLinesParser(fieldMap?: FieldMap): LineParser {
  const fields = resolveFieldMap(fieldMap);
  return (line) => parseJsonLine(line, fields);
}

function parseJsonLine(line: string, fields: ResolvedFieldMap): LineParseResult {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return malformed('invalid JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return malformed('not a JSON object');
  const object = value as Record<string, unknown>;

  const rawTime = firstPresent(object, fields.timestamp);
  if (rawTime === undefined) return malformed(`no timestamp member (${fields.timestamp.join(', ')})`);
  const timestamp = parseTimestampValue(rawTime);
  if (timestamp === undefined) return malformed('timestamp is not an ISO 8601 time, common-log time or epoch number');

  const rawPath = firstString(object, fields.path);
  if (rawPath === undefined) return malformed(`no path member (${fields.path.join(', ')})`);
  let method = firstString(object, fields.method);
  let target = rawPath;
  if (REQUEST_LINE.test(rawPath)) {
    const requestLine = parseRequestLine(rawPath);
    if (requestLine) {
      target = requestLine.target;
      method ??= requestLine.method;
    }
  }

  const rawStatus = firstPresent(object, fields.status);
  let status: number | undefined;
  if (rawStatus !== undefined) {
    status = Number(rawStatus);
    if (!Number.isInteger(status) || status < 100 || status > 599) return malformed('status is not an HTTP status code');
  }

  return {
    ok: true,
    record: {
      timestamp,
      method: method ?? 'GET',
      target,
      status: status ?? 200,
      ...(status === undefined ? { statusAssumed: true } : {}),
      ip: firstString(object, fields.ip),
      userAgent: firstString(object, fields.userAgent),
      referrer: firstString(object, fields.referrer),
      accept: firstString(object, fields.accept),
      visitorId: firstString(object, fields.visitorId),
    },
  };
}

/** The first member that holds a string or number, reading `a.b.c` as a nested path when there is no member of that exact name. */
function firstPresent(object: Record<string, unknown>, names: readonly string[]): string | number | undefined {
  for (const name of names) {
    const value = scalar(lookup(object, name));
    if (value !== undefined) return value;
  }
  return undefined;
}

function firstString(object: Record<string, unknown>, names: readonly string[]): string | undefined {
  const value = firstPresent(object, names);
  if (value === undefined) return undefined;
  const text = String(value);
  return text === '' || text === '-' ? undefined : text;
}

function lookup(object: Record<string, unknown>, name: string): unknown {
  if (Object.hasOwn(object, name)) return object[name];
  if (!name.includes('.')) return undefined;
  let current: unknown = object;
  for (const part of name.split('.')) {
    if (typeof current !== 'object' || current === null || Array.isArray(current)) return undefined;
    if (!Object.hasOwn(current, part)) return undefined;
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

function scalar(value: unknown): string | number | undefined {
  // Caddy logs headers as arrays of values; the first is the one a single-valued header has.
  const single: unknown = Array.isArray(value) ? value[0] : value;
  if (typeof single === 'string') return single === '' || single === '-' ? undefined : single;
  if (typeof single === 'number' && Number.isFinite(single)) return single;
  return undefined;
}
