import { validationFailed } from '../../core/errors.js';

export const HIT_FIELDS = ['timestamp', 'path', 'userAgent', 'ip', 'referrer', 'status', 'method', 'accept', 'visitorId'] as const;

export type HitField = (typeof HIT_FIELDS)[number];

/**
 * Which JSON member holds each value. A name may be dotted (`request.headers.User-Agent`)
 * to reach into nested objects; a list is tried in order and the first present member
 * wins. A field given here replaces the defaults for that field only.
 */
export type FieldMap = Partial<Record<HitField, string | readonly string[]>>;

export type ResolvedFieldMap = Record<HitField, readonly string[]>;

/**
 * Defaults cover nginx `log_format ... escape=json` setups (variable names), Caddy,
 * Cloudflare Logpush, and the usual hand-written names. `path` also accepts a full URL or
 * a request line (`"GET /x HTTP/1.1"`, nginx `$request`), so `request` comes last.
 */
export const DEFAULT_FIELD_MAP: ResolvedFieldMap = {
  timestamp: ['timestamp', 'time', '@timestamp', 'time_iso8601', 'time_local', 'ts', 'datetime', 'date', 'msec', 'EdgeStartTimestamp'],
  path: ['path', 'request_uri', 'uri', 'url', 'request_url', 'requestUri', 'requestUrl', 'request.uri', 'ClientRequestURI', 'request'],
  userAgent: ['userAgent', 'user_agent', 'http_user_agent', 'useragent', 'ua', 'agent', 'request.headers.User-Agent', 'ClientRequestUserAgent'],
  ip: ['ip', 'remote_addr', 'remoteAddr', 'client_ip', 'clientIp', 'remote_ip', 'remoteIp', 'request.client_ip', 'request.remote_ip', 'ClientIP'],
  referrer: ['referrer', 'referer', 'http_referer', 'http_referrer', 'request.headers.Referer', 'ClientRequestReferer'],
  status: ['status', 'status_code', 'statusCode', 'response_status', 'EdgeResponseStatus'],
  method: ['method', 'request_method', 'requestMethod', 'http_method', 'request.method', 'ClientRequestMethod'],
  accept: ['accept', 'http_accept', 'request.headers.Accept'],
  visitorId: ['visitorId', 'visitor_id'],
};

/** Merges a user's field map over the defaults; an unknown field or an empty name is a validation error. */
export function resolveFieldMap(fieldMap: FieldMap | undefined): ResolvedFieldMap {
  const resolved: ResolvedFieldMap = { ...DEFAULT_FIELD_MAP };
  if (fieldMap === undefined) return resolved;
  const errors: Array<{ path: string; message: string }> = [];
  // The map comes from the operator's JSON: a field may be present and undefined.
  for (const [field, names] of Object.entries(fieldMap) as Array<[string, FieldMap[HitField]]>) {
    if (!(HIT_FIELDS as readonly string[]).includes(field)) {
      errors.push({ path: `fieldMap.${field}`, message: `unknown field; expected one of ${HIT_FIELDS.join(', ')}` });
      continue;
    }
    if (names === undefined) continue;
    const list = typeof names === 'string' ? [names] : [...names];
    if (list.length === 0 || list.some((name) => typeof name !== 'string' || name.trim() === '')) {
      errors.push({ path: `fieldMap.${field}`, message: 'expected a non-empty member name or list of names' });
      continue;
    }
    resolved[field as HitField] = list;
  }
  if (errors.length > 0) throw validationFailed('The JSON field map is invalid.', errors);
  return resolved;
}
