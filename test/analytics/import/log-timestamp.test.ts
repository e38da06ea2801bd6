import { describe, expect, test } from 'vitest';
import { parseCommonLogTimestamp, parseTimestampValue } from '../../../src/analytics/import/log-timestamp.js';

describe('common-log time', () => {
  test.each([
    ['10/Oct/2000:13:55:36 -0700', Date.UTC(2000, 9, 10, 20, 55, 36)],
    ['10/Oct/2000:13:55:36 +0000', Date.UTC(2000, 9, 10, 13, 55, 36)],
    ['01/Jan/2025:00:30:00 +0100', Date.UTC(2024, 11, 31, 23, 30, 0)],
    ['31/Dec/2024:23:00:00 -0130', Date.UTC(2025, 0, 1, 0, 30, 0)],
    ['29/Feb/2024:12:00:00 +0000', Date.UTC(2024, 1, 29, 12, 0, 0)],
    ['05/mar/2024:01:02:03.250 +0000', Date.UTC(2024, 2, 5, 1, 2, 3, 250)],
  ])('%s', (text, expected) => {
    expect(parseCommonLogTimestamp(text)).toBe(expected);
  });

  test.each(['29/Feb/2023:12:00:00 +0000', '10/Oct/2000:24:00:00 +0000', '10/Oct/2000:13:55 +0000', '2000-10-10T13:55:36Z', ''])('rejects %j', (text) => {
    expect(parseCommonLogTimestamp(text)).toBeUndefined();
  });
});

describe('JSON timestamps', () => {
  const instant = Date.UTC(2025, 2, 14, 9, 26, 53, 589);

  test.each([
    ['ISO with Z', '2025-03-14T09:26:53.589Z', instant],
    ['ISO with offset', '2025-03-14T10:26:53.589+01:00', instant],
    ['ISO with compact offset', '2025-03-14T04:26:53.589-0500', instant],
    ['ISO with microseconds', '2025-03-14T09:26:53.589793Z', instant],
    ['ISO without zone is UTC', '2025-03-14T09:26:53.589', instant],
    ['space instead of T', '2025-03-14 09:26:53.589Z', instant],
    ['epoch seconds (number)', 1741944413.589, instant],
    ['epoch seconds (string, nginx $msec)', '1741944413.589', instant],
    ['epoch milliseconds', 1741944413589, instant],
    ['epoch microseconds', 1741944413589793, instant],
    ['epoch nanoseconds (Cloudflare)', 1741944413589793000, instant],
    ['common-log time (nginx $time_local)', '14/Mar/2025:10:26:53 +0100', instant - 589],
  ])('%s', (_name, value, expected) => {
    expect(parseTimestampValue(value)).toBe(expected);
  });

  test.each([
    ['zero', 0],
    ['negative', -5],
    ['before 1990', '1989-12-31T23:59:59Z'],
    ['not a date', 'yesterday'],
    ['a boolean', true],
    ['null', null],
    ['an impossible day', '2025-02-30T00:00:00Z'],
    ['NaN', Number.NaN],
  ])('rejects %s', (_name, value) => {
    expect(parseTimestampValue(value)).toBeUndefined();
  });
});
