import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { parseDate, parseDateOrDateTime, parseDateTime } from '../../src/analytics/parse-instant.js';

describe('ISO 8601 parsing in UTC', () => {
  test('any toISOString output parses back to its instant; its date part to that midnight', () => {
    fc.assert(
      fc.property(fc.integer({ min: -62_135_596_800_000, max: 253_402_300_799_999 }), (ms) => {
        const iso = new Date(ms).toISOString();
        expect(parseDateTime(iso)).toBe(ms);
        expect(parseDate(iso.slice(0, 10))).toBe(ms - (((ms % 86_400_000) + 86_400_000) % 86_400_000));
      }),
    );
  });

  test('offsets, missing seconds, fractions and no offset (UTC)', () => {
    const base = Date.UTC(2026, 2, 8, 10, 30);
    expect(parseDateTime('2026-03-08T10:30Z')).toBe(base);
    expect(parseDateTime('2026-03-08T10:30:00')).toBe(base);
    expect(parseDateTime('2026-03-08 10:30:00Z')).toBe(base);
    expect(parseDateTime('2026-03-08T12:30:00+02:00')).toBe(base);
    expect(parseDateTime('2026-03-08T05:00:00-0530')).toBe(base);
    expect(parseDateTime('2026-03-08T11:30:00+01')).toBe(base);
    expect(parseDateTime('2026-03-08T10:30:00.123456789Z')).toBe(base + 123);
    expect(parseDateTime('2026-03-08T10:30:00,5Z')).toBe(base + 500);
    expect(parseDateOrDateTime('2026-03-08')).toBe(Date.UTC(2026, 2, 8));
    expect(parseDate('0099-01-01')).toBe(new Date('0099-01-01T00:00:00Z').getTime());
  });

  test.each([
    '2026-02-29',
    '2025-02-29T00:00:00Z',
    '2026-04-31',
    '2026-00-10',
    '2026-13-01',
    '2026-01-01T24:00:00Z',
    '2026-01-01T10:60Z',
    '2026-01-01T10:00:60Z',
    '2026-01-01T10:00+24:00',
    '2026-1-01',
    'tomorrow',
    '',
    '2026-01-01T10',
    '2026-01-01T10:00:00ZZ',
  ])('%j is refused', (value) => {
    expect(parseDateOrDateTime(value)).toBeNull();
  });

  test('leap days exist only in leap years', () => {
    expect(parseDate('2024-02-29')).toBe(Date.UTC(2024, 1, 29));
    expect(parseDate('2000-02-29')).toBe(Date.UTC(2000, 1, 29));
    expect(parseDate('1900-02-29')).toBeNull();
  });
});
