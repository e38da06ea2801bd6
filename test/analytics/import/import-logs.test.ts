import { describe, expect, test } from 'vitest';
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { gzipSync } from 'node:zlib';
import { importLogs } from '../../../src/analytics/import/import-logs.js';
import { ImportAbortedError } from '../../../src/analytics/import/import-aborted-error.js';
import type { ImportHit, ImportOptions, ImportProgress, SendResult } from '../../../src/analytics/import/import-types.js';
import { ManualClock } from '../../../src/core/clock.js';
import { DocwrightError } from '../../../src/core/errors.js';
import { combined, directory, pageViews, recordingSend, run, writeLog } from './import-log-fixtures.js';

describe('importLogs', () => {
  test('keeps page views, skips the rest, and reports exact counts', async () => {
    const file = writeLog(
      'mixed.log',
      [
        combined({ path: '/docs/intro?utm=1', ip: '2001:db8::7', agent: 'Claude-User/1.0' }),
        combined({ path: '/_next/static/chunks/app.js' }),
        combined({ path: '/docs/intro.md', second: 1 }),
        combined({ path: '/docs/missing', status: 404 }),
        combined({ path: '/api/search', method: 'POST' }),
        'this is not a log line',
        '',
        '   ',
        combined({ path: '/docs//a/../guide#top', method: 'HEAD', status: 304, second: 2 }),
        combined({ path: '/favicon.ico' }),
      ].join('\n'),
    );
    const { hits, summary } = await run({ files: [file] });

    expect(hits).toEqual([
      expect.objectContaining({ timestamp: '2025-01-01T00:00:00.000Z', path: '/docs/intro', ip: '2001:db8::7', userAgent: 'Claude-User/1.0' }),
      expect.objectContaining({ timestamp: '2025-01-01T00:00:01.000Z', path: '/docs/intro.md' }),
      expect.objectContaining({ timestamp: '2025-01-01T00:00:02.000Z', path: '/docs/guide' }),
    ]);
    expect(hits[0]).not.toHaveProperty('referrer');
    expect(summary).toMatchObject({ files: 1, lines: 8, hits: 3, skippedNotPage: 4, malformed: 1, accepted: 3, rejected: 0 });
    expect(summary.lines).toBe(summary.hits + summary.skippedNotPage + summary.malformed);
    expect(summary.malformedExamples).toEqual([{ file, line: 6, reason: expect.any(String), text: 'this is not a log line' }]);
    expect(summary.failedFiles).toEqual([]);
  });

  test('batches hold at most batchSize hits and together hold every hit in order', async () => {
    const file = writeLog('many.log', pageViews(2_500));
    const byDefault = await run({ files: [file] });
    expect(byDefault.batches.map((batch) => batch.length)).toEqual([1000, 1000, 500]);
    expect(byDefault.hits.map((hit) => hit.path)).toEqual(Array.from({ length: 2_500 }, (_, index) => `/docs/page-${index}`));

    const small = await run({ files: [file], batchSize: 300 });
    expect(small.batches.every((batch) => batch.length <= 300)).toBe(true);
    expect(small.batches).toHaveLength(9);
    expect(small.hits).toEqual(byDefault.hits);
  });

  test('batches continue across files', async () => {
    const first = writeLog('a.log', pageViews(700));
    const second = writeLog('b.log', pageViews(700, 700));
    const { batches, summary } = await run({ files: [first, second] });
    expect(batches.map((batch) => batch.length)).toEqual([1000, 400]);
    expect(summary).toMatchObject({ files: 2, hits: 1400, accepted: 1400 });
  });

  describe('hit ids', () => {
    test('are unique within an import and identical when it runs again', async () => {
      const file = writeLog('ids.log', pageViews(1_500));
      const first = await run({ files: [file] });
      const second = await run({ files: [file] });
      const ids = first.hits.map((hit) => hit.id);
      expect(new Set(ids).size).toBe(1_500);
      expect(second.hits.map((hit) => hit.id)).toEqual(ids);
    });

    test('follow the content, not the path: a copy, a rename or a gzip of the log keeps them', async () => {
      const content = pageViews(200);
      const original = writeLog('access.log', content);
      const rotated = writeLog('access.log.2.gz', gzipSync(content));
      const copied = writeLog('elsewhere.txt', readFileSync(original));
      const ids = async (file: string): Promise<string[]> => (await run({ files: [file] })).hits.map((hit) => hit.id);
      const expected = await ids(original);
      expect(await ids(rotated)).toEqual(expected);
      expect(await ids(copied)).toEqual(expected);
    });

    test('differ between different lines and agree on the lines two logs share', async () => {
      const a = await run({ files: [writeLog('one.log', pageViews(10))] });
      const b = await run({ files: [writeLog('two.log', pageViews(10, 5))] });
      const shared = a.hits.filter((hit) => b.hits.some((other) => other.id === hit.id));
      expect(shared.map((hit) => hit.path)).toEqual(['/docs/page-5', '/docs/page-6', '/docs/page-7', '/docs/page-8', '/docs/page-9']);
    });

    test('of earlier lines survive the log growing, so re-importing a live log sends them again under the same ids', async () => {
      const file = writeLog('live.log', pageViews(100));
      const before = await run({ files: [file] });
      appendFileSync(file, pageViews(50, 100));
      const after = await run({ files: [file] });
      expect(after.hits.slice(0, 100).map((hit) => hit.id)).toEqual(before.hits.map((hit) => hit.id));
      expect(after.hits).toHaveLength(150);
    });
  });

  describe('backpressure', () => {
    /** A send whose answers the test releases, recording how many batches were outstanding at once. */
    function gatedSend() {
      const pending: Array<() => void> = [];
      const state = { calls: 0, outstanding: 0, maxOutstanding: 0 };
      const send = (hits: ImportHit[]): Promise<SendResult> => {
        state.calls++;
        state.outstanding++;
        state.maxOutstanding = Math.max(state.maxOutstanding, state.outstanding);
        return new Promise((resolve) => {
          pending.push(() => {
            state.outstanding--;
            resolve({ accepted: hits.length, rejected: 0 });
          });
        });
      };
      const releaseOne = (): void => pending.shift()?.();
      return { send, state, releaseOne, pendingCount: () => pending.length };
    }

    test.each([1, 2])('with at most %i batch(es) in flight, reading waits for answers', async (maxBatchesInFlight) => {
      const file = writeLog('pressure.log', pageViews(10_000));
      const gate = gatedSend();
      let linesAtLastProgress = 0;
      const done = importLogs({
        files: [file],
        send: gate.send,
        maxBatchesInFlight,
        onProgress: (progress) => {
          linesAtLastProgress = progress.lines;
        },
      });
      // Reading gets to the limit (on a loaded machine that can take longer than 100 ms) …
      for (const deadline = Date.now() + 10_000; gate.state.calls < maxBatchesInFlight && Date.now() < deadline;) await sleep(5);
      // … and stops there: nothing was answered yet, so no further batch may be sent meanwhile.
      await sleep(100);
      expect(gate.state.calls).toBe(maxBatchesInFlight);
      expect(linesAtLastProgress).toBeLessThanOrEqual((maxBatchesInFlight + 1) * 1000);
      while (gate.state.calls < 10 || gate.pendingCount() > 0) {
        gate.releaseOne();
        await sleep(1);
      }
      const summary = await done;
      expect(gate.state.maxOutstanding).toBe(maxBatchesInFlight);
      expect(summary).toMatchObject({ hits: 10_000, accepted: 10_000 });
    });

    test('with slow answers arriving out of order, never more than two batches are outstanding', async () => {
      let outstanding = 0;
      let maxOutstanding = 0;
      let call = 0;
      const summary = await importLogs({
        files: [writeLog('jitter.log', pageViews(8_000))],
        batchSize: 500,
        send: async (hits) => {
          outstanding++;
          maxOutstanding = Math.max(maxOutstanding, outstanding);
          await sleep(call++ % 2 === 0 ? 15 : 1);
          outstanding--;
          return { accepted: hits.length - 1, rejected: 1 };
        },
      });
      expect(maxOutstanding).toBe(2);
      expect(summary).toMatchObject({ hits: 8_000, accepted: 8_000 - 16, rejected: 16 });
    });
  });

  describe('malformed lines', () => {
    test('are counted and skipped with a limited number of examples carrying line numbers', async () => {
      const lines = [];
      for (let index = 0; index < 30; index++) lines.push(index % 3 === 0 ? `garbage ${index}` : combined({ second: index, path: `/p${index}` }));
      lines.push('x'.repeat(70_000));
      const file = writeLog('bad.log', lines.join('\n'));
      const { summary } = await run({ files: [file], maxMalformedExamples: 3 });
      expect(summary).toMatchObject({ lines: 31, hits: 20, malformed: 11 });
      expect(summary.malformedExamples.map((example) => [example.line, example.text])).toEqual([
        [1, 'garbage 0'],
        [4, 'garbage 3'],
        [7, 'garbage 6'],
      ]);
      const all = await run({ files: [file], maxMalformedExamples: 100 });
      expect(all.summary.malformedExamples.at(-1)).toEqual({ file, line: 31, reason: 'line longer than 65536 bytes', text: '' });
    });

    test('a log that starts with a torn line is still recognized', async () => {
      const file = writeLog('torn.log', `ozilla/5.0" "x"\n${pageViews(3)}`);
      const { summary } = await run({ files: [file] });
      expect(summary).toMatchObject({ lines: 4, hits: 3, malformed: 1 });
      expect(summary.malformedExamples[0]?.line).toBe(1);
    });

    test('a file in no known format is reported and the next file still imported', async () => {
      const unknown = writeLog('error.log', Array.from({ length: 100 }, (_, index) => `2025/01/01 00:00:${index} [error] 12#12: open() failed`).join('\n'));
      const good = writeLog('good.log', pageViews(5));
      const { summary } = await run({ files: [unknown, good] });
      expect(summary.failedFiles).toEqual([{ file: unknown, message: expect.stringMatching(/format not recognized in its first 20/) }]);
      expect(summary).toMatchObject({ lines: 25, malformed: 20, hits: 5 });
    });
  });

  describe('formats', () => {
    test('are detected per file: a combined log, a gzipped JSON-lines log', async () => {
      const json = [
        JSON.stringify({
          time: '2025-02-02T10:00:00+01:00',
          request_uri: '/docs/json?x',
          remote_addr: '192.0.2.1',
          status: 200,
          http_user_agent: 'UA',
          http_accept: 'text/markdown',
        }),
        JSON.stringify({ time: '2025-02-02T10:00:01+01:00', request_uri: '/logo.png', status: 200 }),
      ].join('\n');
      const { hits, summary } = await run({ files: [writeLog('c.log', pageViews(1)), writeLog('j.log', gzipSync(json))] });
      expect(summary).toMatchObject({ lines: 3, hits: 2, skippedNotPage: 1, malformed: 0 });
      expect(hits[1]).toEqual({
        id: expect.any(String),
        timestamp: '2025-02-02T09:00:00.000Z',
        path: '/docs/json',
        ip: '192.0.2.1',
        userAgent: 'UA',
        accept: 'text/markdown',
        status: 200,
      });
    });

    test('the logged status goes with each hit, and of the query string only an utm_source (AI referrals)', async () => {
      const json = [
        JSON.stringify({ time: '2025-02-02T10:00:00Z', request_uri: '/docs/a?utm_source=chatgpt.com&utm_medium=x', status: 304, remote_addr: '192.0.2.1' }),
        JSON.stringify({ time: '2025-02-02T10:00:01Z', request_uri: '/docs/b?q=1', remote_addr: '192.0.2.1' }),
      ].join('\n');
      const { hits } = await run({ files: [writeLog('j.log', json)] });
      expect(hits.map((hit) => [hit.path, hit.status])).toEqual([
        ['/docs/a?utm_source=chatgpt.com', 304],
        // No status in the log: none is sent (the 200 the page rule assumes is not a fact to store).
        ['/docs/b', undefined],
      ]);
    });

    test('JSON field names can be configured', async () => {
      const file = writeLog('custom.jsonl', `${JSON.stringify({ at: 1738490400, page: '/docs/x', who: 'visitor-9' })}\n`);
      const { hits } = await run({ files: [file], fieldMap: { timestamp: 'at', path: 'page', visitorId: 'who' } });
      expect(hits).toEqual([{ id: expect.any(String), timestamp: '2025-02-02T10:00:00.000Z', path: '/docs/x', visitorId: 'visitor-9' }]);
    });

    test('an explicit format overrides detection', async () => {
      const { summary } = await run({ files: [writeLog('forced.log', pageViews(4))], format: 'json' });
      expect(summary).toMatchObject({ lines: 4, hits: 0, malformed: 4 });
      expect(summary.malformedExamples[0]?.reason).toBe('invalid JSON');
    });
  });

  test('a truncated gzip is reported as a failed file after importing what it could read', async () => {
    const compressed = gzipSync(pageViews(20_000));
    const file = writeLog('cut.log.gz', compressed.subarray(0, Math.floor(compressed.length / 2)));
    const { summary } = await run({ files: [file, writeLog('after.log', pageViews(3))] });
    expect(summary.failedFiles).toEqual([{ file, message: expect.stringMatching(/^stopped after line \d+: unexpected end of file/) }]);
    expect(summary.hits).toBeGreaterThan(1_000);
    expect(summary.hits).toBeLessThan(20_003);
  });

  test('empty files and files of blank lines import nothing and fail nothing', async () => {
    const { batches, summary } = await run({ files: [writeLog('empty.log', ''), writeLog('blank.log', '\n\r\n  \n')] });
    expect(batches).toEqual([]);
    expect(summary).toMatchObject({ files: 2, lines: 0, hits: 0, malformed: 0, failedFiles: [] });
  });

  test('a missing file fails the import before anything is sent', async () => {
    const recorder = recordingSend();
    const missing = join(directory, 'does-not-exist.log');
    await expect(importLogs({ files: [writeLog('ok.log', pageViews(2)), missing], send: recorder.send })).rejects.toMatchObject({
      code: 'log_file_unreadable',
      status: 400,
    });
    expect(recorder.batches).toEqual([]);
  });

  test('a failing send stops the import with its error', async () => {
    let calls = 0;
    const failure = new Error('HTTP 401 from the events endpoint');
    await expect(
      importLogs({
        files: [writeLog('fail.log', pageViews(5_000))],
        send: async (hits) => {
          calls++;
          if (calls === 2) throw failure;
          await sleep(5);
          return { accepted: hits.length, rejected: 0 };
        },
      }),
    ).rejects.toBe(failure);
    expect(calls).toBeLessThanOrEqual(3);
  });

  test('a send answer that does not add up is an error, not a silent miscount', async () => {
    await expect(importLogs({ files: [writeLog('count.log', pageViews(3))], send: async () => ({ accepted: 5, rejected: 0 }) })).rejects.toMatchObject({
      code: 'invalid_send_result',
    });
  });

  test('aborting stops reading and returns what was done in the error', async () => {
    const controller = new AbortController();
    let sent = 0;
    const attempt = importLogs({
      files: [writeLog('abort.log', pageViews(20_000))],
      signal: controller.signal,
      send: async (hits) => {
        sent += hits.length;
        if (sent >= 3_000) controller.abort();
        return { accepted: hits.length, rejected: 0 };
      },
    });
    const error = await attempt.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ImportAbortedError);
    const summary = (error as ImportAbortedError).summary;
    expect((error as ImportAbortedError).code).toBe('import_aborted');
    expect(summary.accepted).toBe(sent);
    expect(summary.lines).toBeLessThan(20_000);
  });

  test('progress covers all bytes of all files, and time comes from the clock', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 1));
    const first = writeLog('p1.log', pageViews(9_000));
    const second = writeLog('p2.log.gz', gzipSync(pageViews(9_000, 9_000)));
    const totalBytes = readFileSync(first).length + readFileSync(second).length;
    const reports: ImportProgress[] = [];
    const summary = await importLogs({
      files: [first, second],
      clock,
      send: async (hits) => {
        clock.advance(250);
        return { accepted: hits.length, rejected: 0 };
      },
      onProgress: (progress) => reports.push(progress),
    });
    expect(reports.length).toBeGreaterThan(10);
    expect(reports.every((report) => report.totalBytes === totalBytes && report.fileCount === 2)).toBe(true);
    for (let index = 1; index < reports.length; index++) {
      expect(reports[index]?.bytesRead).toBeGreaterThanOrEqual(reports[index - 1]?.bytesRead ?? 0);
      expect(reports[index]?.lines).toBeGreaterThanOrEqual(reports[index - 1]?.lines ?? 0);
    }
    expect(reports.some((report) => report.fileIndex === 1 && report.file === second)).toBe(true);
    expect(reports.at(-1)).toMatchObject({ bytesRead: totalBytes, hits: 18_000, accepted: 18_000, elapsedSeconds: 4.5 });
    expect(summary.seconds).toBe(4.5);
    expect(summary.bytes).toBe(totalBytes);
  });

  test.each([
    [{ batchSize: 0 }, 'batchSize'],
    [{ batchSize: 1001 }, 'batchSize'],
    [{ batchSize: 2.5 }, 'batchSize'],
    [{ maxBatchesInFlight: 3 }, 'maxBatchesInFlight'],
    [{ files: [] }, 'files'],
    [{ format: 'csv' }, 'format'],
  ])('invalid option %j is rejected', async (override, path) => {
    const options = { files: [writeLog('v.log', pageViews(1))], send: recordingSend().send, ...override } as ImportOptions;
    const error = await importLogs(options).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DocwrightError);
    expect((error as DocwrightError).code).toBe('validation_failed');
    expect((error as DocwrightError).errors?.map((entry) => entry.path)).toEqual([path]);
  });
});
