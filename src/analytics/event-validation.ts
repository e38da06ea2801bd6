import { isIP } from 'node:net';
import { parseDateTime } from './parse-instant.js';
import { canonicalPathEncoding } from './path-encoding.js';
import { utmSourceOf } from './classification/ai-referral.js';
import type { SignatureHeaders } from './verification/hit-verifier.js';
import { readSignatureField } from './verification/signature-field.js';
import { isWellFormed } from './utf8-text.js';

/** One hit as the events endpoint takes it, after validation. */
export interface ValidEvent {
  index: number;
  id: string | null;
  /** Milliseconds since the epoch. */
  at: number;
  path: string;
  userAgent: string;
  ip: string | null;
  visitorId: string | null;
  accept: string | null;
  referrer: string | null;
  /** The utm_source of the path's query string (which is not kept), for AI referrals. */
  utmSource: string | null;
  /** HTTP status of the response, when the sender knew it. */
  status: number | null;
  /** The request's Web Bot Auth headers (`webBotAuth`), for the verifier; never stored. */
  signature: SignatureHeaders | null;
}

export type EventRejectionCode =
  | 'invalid_event'
  | 'invalid_field'
  | 'invalid_path'
  | 'invalid_timestamp'
  | 'timestamp_in_future'
  | 'timestamp_too_old'
  | 'missing_visitor'
  | 'invalid_signature';

export interface EventRejection {
  index: number;
  code: EventRejectionCode;
  message: string;
}

export interface EventTimeWindow {
  /** Used when an event has no timestamp. */
  receivedAt: number;
  /** Latest accepted instant (receivedAt + 5 minutes of clock skew). */
  latest: number;
  /** Earliest accepted instant (the retention horizon). */
  earliest: number;
}

export const MAX_ID_LENGTH = 200;
export const MAX_PATH_LENGTH = 1024;
const MAX_PATH_BYTES = 2048;
/** Longer values are cut, not rejected: the classifier reads only the start of a user agent anyway. */
export const MAX_USER_AGENT_LENGTH = 1024;
const MAX_ACCEPT_LENGTH = 1024;
export const MAX_REFERRER_LENGTH = 2048;
// Whitespace and control characters never appear in a request path as sent on the wire.
const PATH_FORBIDDEN = /[\u0000-\u0020\u007f]/;

function reject(index: number, code: EventRejectionCode, message: string): EventRejection {
  return { index, code, message };
}

function optionalString(value: unknown): string | null | undefined {
  if (value === undefined || value === null) return null;
  return typeof value === 'string' ? value : undefined;
}

/**
 * Why `value` of `field` cannot be stored as text on every backend, or null when it can. An
 * unpaired surrogate has no UTF-8 form (PostgreSQL and ClickHouse stored U+FFFD instead, or
 * refused the statement with a 500), and PostgreSQL text cannot hold NUL. A byte of the
 * body that is not UTF-8 arrives as a lone surrogate too (decodeUtf8Marked).
 */
function textRejection(index: number, code: EventRejectionCode, field: string, value: string | null): EventRejection | null {
  if (value === null || (isWellFormed(value) && !value.includes('\u0000'))) return null;
  return reject(index, code, `${field} must be well-formed text: no unpaired UTF-16 surrogate, no byte that is not UTF-8, no NUL`);
}

/** The first `length` UTF-16 units of `value`, one fewer when the cut would split a surrogate pair. */
function cut(value: string, length: number): string {
  if (value.length <= length) return value;
  const code = value.charCodeAt(length - 1);
  return value.slice(0, code >= 0xd800 && code <= 0xdbff ? length - 1 : length);
}

/** The path without its query string and fragment, in canonical percent-encoding (path-encoding.ts), or a reason it is not a page path. */
export function normalisePath(raw: string): string | { message: string } {
  let end = raw.length;
  const query = raw.indexOf('?');
  if (query !== -1) end = query;
  const fragment = raw.indexOf('#');
  if (fragment !== -1 && fragment < end) end = fragment;
  const sent = end === raw.length ? raw : raw.slice(0, end);
  if (sent.charCodeAt(0) !== 47 /* / */ || sent.startsWith('//')) return { message: 'path must start with a single "/" (a path, not a URL)' };
  if (PATH_FORBIDDEN.test(sent)) return { message: 'path must not contain raw whitespace or control characters (percent-encode them: %20)' };
  // Beacon (encoded location.pathname), API and import must count one page under one key.
  const path = canonicalPathEncoding(sent);
  if (path.length > MAX_PATH_LENGTH || (path.length > MAX_PATH_BYTES / 4 && Buffer.byteLength(path) > MAX_PATH_BYTES)) {
    return { message: `path must be at most ${MAX_PATH_LENGTH} characters and ${MAX_PATH_BYTES} bytes` };
  }
  return path;
}

/**
 * Checks one item of a batch on its own, so one bad hit never costs the others.
 * Hand-written rather than zod: it runs for every hit of every batch.
 */
export function validateEvent(item: unknown, index: number, window: EventTimeWindow): ValidEvent | EventRejection {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return reject(index, 'invalid_event', 'each event must be a JSON object');
  const event = item as Record<string, unknown>;

  const id = optionalString(event.id);
  if (id === undefined || (id !== null && (id.length === 0 || id.length > MAX_ID_LENGTH))) {
    return reject(index, 'invalid_field', `id must be a string of 1 to ${MAX_ID_LENGTH} characters`);
  }
  const badId = textRejection(index, 'invalid_field', 'id', id);
  if (badId !== null) return badId;

  if (typeof event.path !== 'string') return reject(index, 'invalid_path', 'path is required and must be a string');
  // The whole path, query included: its utm_source is kept.
  const badPath = textRejection(index, 'invalid_path', 'path', event.path);
  if (badPath !== null) return badPath;
  const path = normalisePath(event.path);
  if (typeof path !== 'string') return reject(index, 'invalid_path', path.message);

  let at: number;
  const timestamp = event.timestamp;
  if (timestamp === undefined || timestamp === null) {
    at = window.receivedAt;
  } else if (typeof timestamp === 'string') {
    const parsed = parseDateTime(timestamp);
    if (parsed === null)
      return reject(index, 'invalid_timestamp', 'timestamp must be an ISO 8601 date-time such as 2025-06-01T12:00:00Z, or milliseconds since the epoch');
    at = parsed;
  } else if (typeof timestamp === 'number' && Number.isSafeInteger(timestamp) && timestamp >= 0) {
    at = timestamp;
  } else {
    return reject(index, 'invalid_timestamp', 'timestamp must be an ISO 8601 date-time such as 2025-06-01T12:00:00Z, or milliseconds since the epoch');
  }
  if (at > window.latest) return reject(index, 'timestamp_in_future', 'timestamp is more than 5 minutes in the future');
  if (at < window.earliest) {
    return reject(index, 'timestamp_too_old', `timestamp is before ${new Date(window.earliest).toISOString()}, the start of the retention period`);
  }

  const userAgent = optionalString(event.userAgent);
  if (userAgent === undefined) return reject(index, 'invalid_field', 'userAgent must be a string');
  const accept = optionalString(event.accept);
  if (accept === undefined) return reject(index, 'invalid_field', 'accept must be a string');
  const referrer = optionalString(event.referrer);
  if (referrer === undefined) return reject(index, 'invalid_field', 'referrer must be a string');
  // Checked whole, before any cut: a bad character past the cut still makes a bad event.
  const badText =
    textRejection(index, 'invalid_field', 'userAgent', userAgent) ??
    textRejection(index, 'invalid_field', 'accept', accept) ??
    textRejection(index, 'invalid_field', 'referrer', referrer);
  if (badText !== null) return badText;

  const status = event.status ?? null;
  if (status !== null && !(typeof status === 'number' && Number.isInteger(status) && status >= 100 && status <= 599)) {
    return reject(index, 'invalid_field', 'status must be an integer HTTP status from 100 to 599');
  }

  const ip = optionalString(event.ip);
  if (ip === undefined || (ip !== null && isIP(ip) === 0)) return reject(index, 'invalid_field', 'ip must be an IPv4 or IPv6 address');
  const visitorId = optionalString(event.visitorId);
  if (visitorId === undefined || (visitorId !== null && (visitorId.length === 0 || visitorId.length > MAX_ID_LENGTH))) {
    return reject(index, 'invalid_field', `visitorId must be a string of 1 to ${MAX_ID_LENGTH} characters`);
  }
  const badVisitor = textRejection(index, 'invalid_field', 'visitorId', visitorId);
  if (badVisitor !== null) return badVisitor;
  if (visitorId === null && ip === null) return reject(index, 'missing_visitor', 'an event needs visitorId or ip to tell its visitor apart');
  const signature = readSignatureField(event.webBotAuth);
  if (signature !== null && 'message' in signature) return reject(index, 'invalid_signature', signature.message);

  return {
    index,
    id,
    at,
    path,
    userAgent: userAgent === null ? '' : cut(userAgent, MAX_USER_AGENT_LENGTH),
    ip,
    visitorId,
    accept: accept === null ? null : cut(accept, MAX_ACCEPT_LENGTH),
    referrer: referrer === null || referrer === '' ? null : cut(referrer, MAX_REFERRER_LENGTH),
    utmSource: utmSourceOf(event.path),
    status,
    signature,
  };
}
