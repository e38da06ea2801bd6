import { describe, expect, test } from 'vitest';
import { parseCombinedLine } from '../../../src/analytics/import/combined-log-parser.js';
import type { LogRecord } from '../../../src/analytics/import/log-record.js';

function parsed(line: string): LogRecord {
  const result = parseCombinedLine(line);
  if (!result.ok) throw new Error(`expected ${line} to parse, got: ${result.reason}`);
  return result.record;
}

function reason(line: string): string {
  const result = parseCombinedLine(line);
  if (result.ok) throw new Error(`expected ${line} to be malformed`);
  return result.reason;
}

describe('nginx and Apache combined lines', () => {
  test('a typical nginx line, with the zone offset applied to reach UTC', () => {
    const record = parsed(
      '203.0.113.7 - - [10/Oct/2000:13:55:36 -0700] "GET /docs/guides/quickstart?utm_source=x HTTP/1.1" 200 2326 "https://www.google.com/" "Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0"',
    );
    expect(record).toEqual({
      timestamp: Date.UTC(2000, 9, 10, 20, 55, 36),
      method: 'GET',
      target: '/docs/guides/quickstart?utm_source=x',
      status: 200,
      ip: '203.0.113.7',
      referrer: 'https://www.google.com/',
      userAgent: 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
      accept: undefined,
      visitorId: undefined,
    });
  });

  test('the Apache documentation example, with an authenticated user and a positive offset', () => {
    const record = parsed(
      '127.0.0.1 - frank [10/Oct/2000:13:55:36 +0530] "GET /apache_pb.gif HTTP/1.0" 200 2326 "http://www.example.com/start.html" "Mozilla/4.08 [en] (Win98; I ;Nav)"',
    );
    expect(record.timestamp).toBe(Date.UTC(2000, 9, 10, 8, 25, 36));
    expect(record.userAgent).toBe('Mozilla/4.08 [en] (Win98; I ;Nav)');
    expect(record.referrer).toBe('http://www.example.com/start.html');
  });

  test('IPv6 client addresses, plain and IPv4-mapped', () => {
    expect(parsed('2001:db8:85a3::8a2e:370:7334 - - [01/Jan/2025:00:00:00 +0000] "GET / HTTP/2.0" 200 5 "-" "curl/8.5.0"').ip).toBe(
      '2001:db8:85a3::8a2e:370:7334',
    );
    expect(parsed('::ffff:192.0.2.1 - - [01/Jan/2025:00:00:00 +0000] "GET / HTTP/2.0" 200 5 "-" "curl/8.5.0"').ip).toBe('::ffff:192.0.2.1');
  });

  test('escaped quotes and backslashes inside quoted fields (Apache style) do not end the field', () => {
    const record = parsed(
      '198.51.100.2 - - [01/Jan/2025:00:00:00 +0000] "GET /search HTTP/1.1" 200 10 "https://ex.com/?q=\\"hi\\"" "Agent \\"quoted\\" back\\\\slash"',
    );
    expect(record.referrer).toBe('https://ex.com/?q="hi"');
    expect(record.userAgent).toBe('Agent "quoted" back\\slash');
  });

  test('nginx \\xHH escapes decode as UTF-8 bytes', () => {
    const record = parsed('198.51.100.2 - - [01/Jan/2025:00:00:00 +0000] "GET /caf\\xC3\\xA9 HTTP/1.1" 200 10 "-" "Bot \\x22x\\x22 \\xE2\\x9C\\x93"');
    expect(record.target).toBe('/café');
    expect(record.userAgent).toBe('Bot "x" ✓');
  });

  test('"-" placeholders become absent values', () => {
    const record = parsed('- - - [01/Jan/2025:00:00:00 +0000] "GET /a HTTP/1.1" 200 - "-" "-"');
    expect(record.ip).toBeUndefined();
    expect(record.referrer).toBeUndefined();
    expect(record.userAgent).toBeUndefined();
  });

  test('the common format has no referrer and user agent', () => {
    const record = parsed('192.0.2.9 - - [05/Feb/2024:23:59:59 +0100] "HEAD /docs HTTP/1.1" 304 -');
    expect(record).toMatchObject({ method: 'HEAD', target: '/docs', status: 304, ip: '192.0.2.9', timestamp: Date.UTC(2024, 1, 5, 22, 59, 59) });
    expect(record.userAgent).toBeUndefined();
  });

  test('extra trailing fields (x-forwarded-for, request time) are ignored', () => {
    const record = parsed('10.0.0.1 - - [01/Jan/2025:00:00:00 +0000] "GET /a HTTP/1.1" 200 12 "-" "UA/1.0" "203.0.113.9, 10.0.0.1" 0.004');
    expect(record.userAgent).toBe('UA/1.0');
    expect(record.ip).toBe('10.0.0.1');
  });

  test('Apache vhost_combined: a virtual host before the client address', () => {
    const record = parsed('docs.example.com:443 192.0.2.4 - - [01/Jan/2025:00:00:00 +0000] "GET /x HTTP/1.1" 200 1 "-" "UA"');
    expect(record.ip).toBe('192.0.2.4');
    expect(record.target).toBe('/x');
  });

  test('a target with a raw space and an HTTP/0.9 request without version', () => {
    expect(parsed('192.0.2.1 - - [01/Jan/2025:00:00:00 +0000] "GET /a b HTTP/1.1" 200 1').target).toBe('/a b');
    expect(parsed('192.0.2.1 - - [01/Jan/2025:00:00:00 +0000] "GET /old" 200 1')).toMatchObject({ method: 'GET', target: '/old' });
  });

  test('an unusable request line (TLS noise, "-") parses, with no method and an empty target', () => {
    const record = parsed('192.0.2.1 - - [01/Jan/2025:00:00:00 +0000] "\\x16\\x03\\x01\\x00" 400 157 "-" "-"');
    expect(record.method).toBeUndefined();
    expect(record.target).toBe('');
    expect(record.status).toBe(400);
    expect(parsed('192.0.2.1 - - [01/Jan/2025:00:00:00 +0000] "-" 408 0 "-" "-"').method).toBeUndefined();
  });

  test.each([
    ['an empty line', ''],
    ['free text', 'nginx: [emerg] bind() to 0.0.0.0:80 failed'],
    ['an unterminated quote', '192.0.2.1 - - [01/Jan/2025:00:00:00 +0000] "GET /a HTTP/1.1'],
    ['an unterminated bracket', '192.0.2.1 - - [01/Jan/2025:00:00:00 +0000 "GET /a HTTP/1.1" 200 1'],
    ['an impossible date', '192.0.2.1 - - [31/Feb/2025:00:00:00 +0000] "GET /a HTTP/1.1" 200 1'],
    ['an unknown month', '192.0.2.1 - - [01/Foo/2025:00:00:00 +0000] "GET /a HTTP/1.1" 200 1'],
    ['a time without zone', '192.0.2.1 - - [01/Jan/2025:00:00:00] "GET /a HTTP/1.1" 200 1'],
    ['a missing status', '192.0.2.1 - - [01/Jan/2025:00:00:00 +0000] "GET /a HTTP/1.1"'],
    ['a non-numeric status', '192.0.2.1 - - [01/Jan/2025:00:00:00 +0000] "GET /a HTTP/1.1" OK 1'],
    ['an unquoted request', '192.0.2.1 - - [01/Jan/2025:00:00:00 +0000] GET /a HTTP/1.1 200 1'],
    ['too few fields before the time', '192.0.2.1 [01/Jan/2025:00:00:00 +0000] "GET /a HTTP/1.1" 200 1'],
  ])('%s is malformed', (_name, line) => {
    expect(reason(line)).toMatch(/\w/);
  });

  test('reasons say what is wrong', () => {
    expect(reason('192.0.2.1 - - [01/Jan/2025:00:00:00 +0000] "GET /a')).toBe('unterminated quoted field');
    expect(reason('192.0.2.1 - - [01/Jan/2025:00:00:00 +0000] "GET /a HTTP/1.1" 2000 1')).toMatch(/status/);
  });
});
