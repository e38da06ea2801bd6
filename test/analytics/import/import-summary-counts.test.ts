import { describe, expect, test } from 'vitest';
import { importLogs } from '../../../src/analytics/import/import-logs.js';
import { importWarnings, isUnreadable } from '../../../src/analytics/import/import-warnings.js';
import type { ImportHit, SendResult } from '../../../src/analytics/import/import-types.js';
import { combined, run, writeLog } from './import-log-fixtures.js';

describe('where the lines went', () => {
  test('lines that are not pages are broken down by the first reason, adding up to skippedNotPage', async () => {
    const file = writeLog(
      'reasons.log',
      [
        combined({ path: '/docs/page' }),
        combined({ path: '/app.css' }),
        combined({ path: '/img/logo.png' }),
        combined({ path: '/favicon.ico' }),
        combined({ path: '/api/search' }),
        combined({ path: '/old', status: 301 }),
        combined({ path: '/missing', status: 404 }),
        combined({ path: '/missing.js', status: 404 }),
        combined({ path: '/boom', status: 503 }),
        combined({ path: '/docs/page', method: 'POST' }),
        combined({ path: '/docs/page', method: 'OPTIONS' }),
        '198.51.100.1 - - [01/Jan/2025:00:00:00 +0000] "-" 400 0 "-" "-"',
        '198.51.100.1 - - [01/Jan/2025:00:00:00 +0000] "CONNECT example.com:443 HTTP/1.1" 200 0 "-" "-"',
        combined({ path: '/early', status: 101 }),
      ].join('\n'),
    );
    const { summary } = await run({ files: [file] });
    expect(summary.hits).toBe(1);
    expect(summary.notPages).toEqual({ asset: 2, skippedPath: 2, redirect: 1, clientError: 2, serverError: 1, otherStatus: 1, method: 2, notRequest: 2 });
    expect(Object.values(summary.notPages).reduce((sum, count) => sum + count, 0)).toBe(summary.skippedNotPage);
  });

  test('a common-format log (no user agent) is flagged: its hits are bots, not people', async () => {
    const common = '198.51.100.1 - - [01/Jan/2025:00:00:00 +0000] "GET /docs/a HTTP/1.1" 200 512';
    const { summary, hits } = await run({ files: [writeLog('common.log', `${common}\n${common.replace('/a', '/b')}\n`)] });
    expect(hits.every((hit) => hit.userAgent === undefined)).toBe(true);
    expect(summary.hitsWithoutUserAgent).toBe(2);
    expect(importWarnings(summary)).toEqual([{ code: 'no_user_agent', message: expect.stringContaining('classes a hit without a user agent as bot') }]);
    const { summary: withAgents } = await run({ files: [writeLog('combined.log', `${combined()}\n`)] });
    expect(importWarnings(withAgents)).toEqual([]);
  });

  test('a log whose every line is malformed is unreadable, with a warning naming the formats', async () => {
    const { summary } = await run({ files: [writeLog('junk.log', 'not a log\nnor this\n')], format: 'combined' });
    expect(summary).toMatchObject({ lines: 2, malformed: 2, hits: 0 });
    expect(isUnreadable(summary)).toBe(true);
    expect(importWarnings(summary)[0]).toMatchObject({ code: 'nothing_readable', message: expect.stringContaining('--format') });
    const { summary: mixed } = await run({ files: [writeLog('mixed.log', `not a log\n${combined()}\n`)] });
    expect(isUnreadable(mixed)).toBe(false);
  });

  test('rejections are counted by the server code; hits older than retention name the setting', async () => {
    const file = writeLog('old.log', `${combined({ path: '/a' })}\n${combined({ path: '/b' })}\n${combined({ path: '/c' })}\n`);
    const send = async (hits: ImportHit[]): Promise<SendResult> => ({
      accepted: 1,
      rejected: hits.length - 1,
      rejectedByCode: { timestamp_too_old: hits.length - 1 },
    });
    const summary = await importLogs({ files: [file], send });
    expect(summary).toMatchObject({ accepted: 1, rejected: 2, rejectedByCode: { timestamp_too_old: 2 } });
    expect(importWarnings(summary)).toEqual([
      { code: 'older_than_retention', message: expect.stringMatching(/older than the server's retention period.*DOCWRIGHT_ANALYTICS_RETENTION_DAYS/) },
    ]);
    // A send that gives no codes is counted as unspecified; codes that do not add up are an error.
    const plain = await importLogs({ files: [file], send: async (hits) => ({ accepted: 0, rejected: hits.length }) });
    expect(plain.rejectedByCode).toEqual({ unspecified: 3 });
    await expect(importLogs({ files: [file], send: async (hits) => ({ accepted: 0, rejected: hits.length, rejectedByCode: { x: 1 } }) })).rejects.toMatchObject(
      {
        code: 'invalid_send_result',
      },
    );
  });
});
