import { describe, expect, test } from 'vitest';
import { gzipSync } from 'node:zlib';
import { LineIdentities, REMEMBERED_LINES } from '../../../src/analytics/import/line-identity.js';
import type { ImportHit } from '../../../src/analytics/import/import-types.js';
import { combined, run, writeLog } from './import-log-fixtures.js';

/** What a server that counts each id once would store after all the given imports. */
function stored(...imports: ImportHit[][]): Map<string, ImportHit> {
  const byId = new Map<string, ImportHit>();
  for (const hits of imports) for (const hit of hits) byId.set(hit.id, hit);
  return byId;
}

/** 300 page views with a few genuinely identical lines (a reload within the logged second). */
function realisticLines(): string[] {
  const lines = Array.from({ length: 300 }, (_, index) =>
    combined({ second: Math.floor(index / 3), path: `/docs/p${index % 40}`, ip: `203.0.113.${index % 50}` }),
  );
  lines[101] = lines[100] ?? '';
  lines[102] = lines[100] ?? '';
  return lines;
}

const text = (lines: readonly string[]): string => `${lines.join('\n')}\n`;

describe('hit identity from line content', () => {
  test('identical lines get successive occurrences, so two genuine requests stay two hits', () => {
    const identities = new LineIdentities();
    const line = combined({ path: '/docs/a' });
    const ids = [identities.next(line), identities.next(combined({ path: '/docs/b' })), identities.next(line), identities.next(`${line}\r`)];
    expect(ids[0]).toMatch(/^[\w-]{22}-0$/);
    expect(ids[2]).toBe(ids[0]?.replace(/-0$/, '-1'));
    // A CRLF copy of the log is the same log.
    expect(ids[3]).toBe(ids[0]?.replace(/-0$/, '-2'));
    expect(new Set(ids).size).toBe(4);
  });

  test('memory is bounded: only the latest distinct lines are remembered', () => {
    const identities = new LineIdentities();
    const first = identities.next('line 0');
    for (let index = 1; index <= REMEMBERED_LINES; index++) identities.next(`line ${index}`);
    // "line 0" was forgotten, so it starts over; a recent line is still counted.
    expect(identities.next('line 0')).toBe(first);
    expect(identities.next(`line ${REMEMBERED_LINES}`)).toMatch(/-1$/);
  });

  test('re-importing a log with one line removed stores no duplicate and loses no hit', async () => {
    const lines = realisticLines();
    const full = await run({ files: [writeLog('full.log', text(lines))] });
    const shorter = await run({ files: [writeLog('shorter.log', text(lines.filter((_, index) => index !== 57)))] });
    expect(full.hits).toHaveLength(300);
    expect(stored(full.hits, shorter.hits).size).toBe(300);
    expect(stored(shorter.hits, full.hits).size).toBe(300);
  });

  test('re-importing with garbage inserted (and an identical line removed) stores no duplicate', async () => {
    const lines = realisticLines();
    const damaged = [...lines.slice(0, 10), 'garbage ####', '', ...lines.slice(10, 101), ...lines.slice(102, 200), '\u0000\u0001 binary', ...lines.slice(200)];
    const first = await run({ files: [writeLog('clean.log', text(lines))] });
    const second = await run({ files: [writeLog('damaged.log', text(damaged))] });
    expect(second.summary.malformed).toBe(2);
    expect(second.hits).toHaveLength(299);
    expect(stored(first.hits, second.hits).size).toBe(300);
  });

  test('rotated, gzipped and appended copies of a log import idempotently', async () => {
    const lines = realisticLines();
    // Day 1: the live log holds the first 200 lines.
    const day1 = await run({ files: [writeLog('access.log', text(lines.slice(0, 200)))] });
    // Day 2: logrotate moved them to access.log.1.gz; the live log holds the rest, and the
    // operator imports everything again, with an appended copy of the live log too.
    const rotated = writeLog('access.log.1.gz', gzipSync(text(lines.slice(0, 200))));
    const live = writeLog('access.log', text(lines.slice(200)));
    const appended = writeLog('access.log.copy', text([...lines.slice(200), combined({ second: 500, path: '/docs/new' })]));
    const day2 = await run({ files: [rotated, live, appended] });
    const all = stored(day1.hits, day2.hits);
    expect(all.size).toBe(301);
    // Lines 100 to 102 are one line three times: three hits, not one and not six.
    const reload = day1.hits[100];
    expect([...all.values()].filter((hit) => hit.path === reload?.path && hit.timestamp === reload.timestamp && hit.ip === reload.ip)).toHaveLength(3);
  });
});
