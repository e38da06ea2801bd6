import { describe, expect, test } from 'vitest';
import { createJsonLinesParser } from '../../../src/analytics/import/json-lines-parser.js';
import { resolveFieldMap } from '../../../src/analytics/import/field-map.js';
import type { LogRecord } from '../../../src/analytics/import/log-record.js';
import { DocwrightError } from '../../../src/core/errors.js';

const parse = createJsonLinesParser();

function parsed(line: string, parser = parse): LogRecord {
  const result = parser(line);
  if (!result.ok) throw new Error(`expected ${line} to parse, got: ${result.reason}`);
  return result.record;
}

describe('JSON lines with the default field names', () => {
  test('an nginx escape=json log using variable names', () => {
    const line = JSON.stringify({
      time_iso8601: '2025-03-14T10:26:53+01:00',
      remote_addr: '2001:db8::1',
      request_method: 'GET',
      request_uri: '/docs/intro?ref=nav',
      status: '200',
      http_referer: 'https://example.com/',
      http_user_agent: 'Mozilla/5.0 Firefox/133.0',
      http_accept: 'text/markdown',
    });
    expect(parsed(line)).toEqual({
      timestamp: Date.UTC(2025, 2, 14, 9, 26, 53),
      method: 'GET',
      target: '/docs/intro?ref=nav',
      status: 200,
      ip: '2001:db8::1',
      referrer: 'https://example.com/',
      userAgent: 'Mozilla/5.0 Firefox/133.0',
      accept: 'text/markdown',
      visitorId: undefined,
    });
  });

  test('nginx $request as a request line supplies method and target', () => {
    const record = parsed(JSON.stringify({ time: '14/Mar/2025:10:26:53 +0100', request: 'HEAD /docs/a.md HTTP/1.1', status: 304 }));
    expect(record).toMatchObject({ method: 'HEAD', target: '/docs/a.md', status: 304 });
  });

  test('a Caddy log: nested request object, header arrays, epoch-seconds ts', () => {
    const line = JSON.stringify({
      level: 'info',
      ts: 1741944413.5241024,
      logger: 'http.log.access',
      request: {
        remote_ip: '192.0.2.10',
        client_ip: '198.51.100.20',
        method: 'GET',
        host: 'docs.example.com',
        uri: '/guides/',
        headers: { 'User-Agent': ['Claude-User/1.0'], Accept: ['text/html'] },
      },
      status: 200,
    });
    expect(parsed(line)).toMatchObject({
      timestamp: 1741944413524,
      method: 'GET',
      target: '/guides/',
      ip: '198.51.100.20',
      userAgent: 'Claude-User/1.0',
      accept: 'text/html',
      status: 200,
    });
  });

  test('@timestamp, url holding a full URL, visitorId', () => {
    const record = parsed(JSON.stringify({ '@timestamp': '2025-01-01T00:00:00Z', url: 'https://docs.example.com/a?b', visitorId: 'v-1' }));
    expect(record).toMatchObject({ target: 'https://docs.example.com/a?b', visitorId: 'v-1' });
  });

  test('a log without method and status is taken as successful GETs', () => {
    expect(parsed(JSON.stringify({ timestamp: 1741944413589, path: '/x' }))).toMatchObject({ method: 'GET', status: 200 });
  });

  test('"-" and empty strings are absent values', () => {
    const record = parsed(JSON.stringify({ time: 1741944413, path: '/x', http_user_agent: '-', remote_addr: '', http_referer: '-' }));
    expect(record.userAgent).toBeUndefined();
    expect(record.ip).toBeUndefined();
    expect(record.referrer).toBeUndefined();
  });
});

describe('JSON lines with custom field names', () => {
  const parser = createJsonLinesParser({
    timestamp: 'when',
    path: ['page.location', 'page.fallback'],
    userAgent: 'client.agent',
    ip: 'client.addr',
    status: 'code',
    method: 'verb',
    visitorId: 'anon',
  });

  test('custom names, dotted paths and fallbacks are used', () => {
    const record = parsed(
      JSON.stringify({
        when: '2025-05-05T05:05:05Z',
        page: { fallback: '/fallback' },
        client: { agent: 'UA', addr: '192.0.2.1' },
        code: 404,
        verb: 'POST',
        anon: 'a1',
      }),
      parser,
    );
    expect(record).toEqual({
      timestamp: Date.UTC(2025, 4, 5, 5, 5, 5),
      method: 'POST',
      target: '/fallback',
      status: 404,
      ip: '192.0.2.1',
      userAgent: 'UA',
      referrer: undefined,
      accept: undefined,
      visitorId: 'a1',
    });
  });

  test('a custom field replaces its defaults, other fields keep theirs', () => {
    // `timestamp` is mapped to `when`, so the default `time` member no longer counts.
    expect(parser(JSON.stringify({ time: '2025-05-05T05:05:05Z', page: { location: '/a' } }))).toEqual({
      ok: false,
      reason: 'no timestamp member (when)',
    });
    expect(parsed(JSON.stringify({ when: 1746421505, page: { location: '/a' }, referer: 'https://r/' }), parser).referrer).toBe('https://r/');
  });

  test('a member whose exact name contains a dot wins over the nested path', () => {
    const dotted = createJsonLinesParser({ userAgent: 'http.user_agent' });
    const record = parsed(JSON.stringify({ time: 1746421505, path: '/a', 'http.user_agent': 'flat', http: { user_agent: 'nested' } }), dotted);
    expect(record.userAgent).toBe('flat');
  });

  test('an unknown field or an empty name is a validation error', () => {
    expect(() => resolveFieldMap({ nope: 'x' } as never)).toThrow(DocwrightError);
    try {
      resolveFieldMap({ path: [] });
      expect.unreachable();
    } catch (error) {
      expect((error as DocwrightError).code).toBe('validation_failed');
      expect((error as DocwrightError).errors?.[0]?.path).toBe('fieldMap.path');
    }
  });
});

describe('malformed JSON lines', () => {
  test.each([
    ['not JSON', '{"time": 1', /invalid JSON/],
    ['an array', '[1,2]', /not a JSON object/],
    ['a string', '"GET /"', /not a JSON object/],
    ['no timestamp', '{"path":"/a"}', /no timestamp/],
    ['a bad timestamp', '{"time":"soon","path":"/a"}', /timestamp/],
    ['no path', '{"time":1741944413}', /no path/],
    ['an object path', '{"time":1741944413,"path":{"a":1}}', /no path/],
    ['a bad status', '{"time":1741944413,"path":"/a","status":"OK"}', /status/],
    ['an out-of-range status', '{"time":1741944413,"path":"/a","status":999}', /status/],
  ])('%s', (_name, line, expected) => {
    const result = parse(line);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(expected);
  });
});
