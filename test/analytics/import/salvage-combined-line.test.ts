import { describe, expect, test } from 'vitest';
import { parseCombinedLine } from '../../../src/analytics/import/combined-log-parser.js';
import { importLogs } from '../../../src/analytics/import/import-logs.js';
import { recordingSend, writeLog } from './import-log-fixtures.js';

const TIME = '[01/Jan/2025:00:00:07 +0000]';
const UA = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';

function salvaged(line: string) {
  const result = parseCombinedLine(line);
  if (!result.ok) throw new Error(`expected ${line} to be salvaged, got: ${result.reason}`);
  expect(result.salvaged).toBe(true);
  return result.record;
}

describe('salvaging a line with a quote left open', () => {
  test('a request line without its closing quote keeps method, path, status, referrer and user agent', () => {
    const record = salvaged(`198.51.100.4 - - ${TIME} "GET /docs/intro HTTP/1.1 200 512 "https://example.com/" "${UA}"`);
    expect(record).toMatchObject({
      timestamp: Date.UTC(2025, 0, 1, 0, 0, 7),
      method: 'GET',
      target: '/docs/intro',
      status: 200,
      ip: '198.51.100.4',
      referrer: 'https://example.com/',
      userAgent: UA,
    });
  });

  test('a user agent cut off before its closing quote runs to the end of the line', () => {
    const record = salvaged(`198.51.100.4 - - ${TIME} "GET /docs/a HTTP/1.1" 200 512 "-" "Mozilla/5.0 (compatible; Claude-User/1.0`);
    expect(record).toMatchObject({ target: '/docs/a', status: 200, referrer: undefined, userAgent: 'Mozilla/5.0 (compatible; Claude-User/1.0' });
  });

  test('a line whose last field is cut off is read as it is, whatever its request', () => {
    const record = salvaged(`202.114.167.57 - - ${TIME} "\\x16\\x03\\x01" 400 157 "-" "-`);
    expect(record).toMatchObject({ status: 400, target: '', userAgent: undefined });
  });

  test('a common-format request line without its closing quote, and a vhost in front', () => {
    expect(salvaged(`198.51.100.4 - - ${TIME} "HEAD /docs/b 304 0`)).toMatchObject({ method: 'HEAD', target: '/docs/b', status: 304, userAgent: undefined });
    expect(salvaged(`docs.example.com 2001:db8::1 - - ${TIME} "GET /c 200 1 "-" "${UA}"`)).toMatchObject({ ip: '2001:db8::1', target: '/c', userAgent: UA });
  });

  test('well-formed lines are not flagged, and lines without a status after the request stay malformed', () => {
    const good = parseCombinedLine(`198.51.100.4 - - ${TIME} "GET /docs HTTP/1.1" 200 512 "-" "${UA}"`);
    expect(good.ok && good.salvaged).toBeFalsy();
    expect(parseCombinedLine(`198.51.100.4 - - ${TIME} "GET /a`).ok).toBe(false);
    expect(parseCombinedLine(`198.51.100.4 - - ${TIME} "GET /a b c d`).ok).toBe(false);
    expect(parseCombinedLine(`- ${TIME} "GET /a HTTP/1.1 200 1`).ok).toBe(false);
  });

  test('the import counts salvaged lines and sends their page views', async () => {
    const file = writeLog(
      'damaged.log',
      [
        `198.51.100.4 - - ${TIME} "GET /docs/ok HTTP/1.1" 200 512 "-" "${UA}"`,
        `198.51.100.5 - - ${TIME} "GET /docs/open HTTP/1.1 200 512 "-" "${UA}"`,
        `198.51.100.6 - - ${TIME} "GET /app.js HTTP/1.1" 200 512 "-" "${UA}`,
        `198.51.100.7 - - ${TIME} "GET /docs/gone`,
      ].join('\n'),
    );
    const recorder = recordingSend();
    const summary = await importLogs({ files: [file], send: recorder.send });
    expect(summary).toMatchObject({ lines: 4, hits: 2, skippedNotPage: 1, malformed: 1, salvaged: 2 });
    expect(recorder.batches.flat().map((hit) => [hit.path, hit.userAgent])).toEqual([
      ['/docs/ok', UA],
      ['/docs/open', UA],
    ]);
  });
});
