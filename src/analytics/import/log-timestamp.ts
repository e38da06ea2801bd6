const MONTHS: Record<string, number> = {
  jan: 0,
  feb: 1,
  mar: 2,
  apr: 3,
  may: 4,
  jun: 5,
  jul: 6,
  aug: 7,
  sep: 8,
  oct: 9,
  nov: 10,
  dec: 11,
};

// Logs older than the web or centuries ahead are corrupt values, not history.
const EARLIEST = Date.UTC(1990, 0, 1);
const LATEST = Date.UTC(2100, 0, 1);

const COMMON_LOG_TIME = /^(\d{1,2})\/([A-Za-z]{3})\/(\d{4}):(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?\s+([+-])(\d{2}):?(\d{2})$/;

const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?\s*([Zz]|[+-]\d{2}(?::?\d{2})?)?$/;

const NUMERIC = /^\d+(?:\.\d+)?$/;

/** The `[10/Oct/2000:13:55:36 -0700]` time of nginx and Apache logs (brackets removed) → UTC ms. */
export function parseCommonLogTimestamp(text: string): number | undefined {
  const match = COMMON_LOG_TIME.exec(text);
  if (!match) return undefined;
  const [, day, monthName, year, hour, minute, second, fraction, sign, offsetHours, offsetMinutes] = match;
  const month = MONTHS[(monthName ?? '').toLowerCase()];
  if (month === undefined) return undefined;
  const offset = (Number(offsetHours) * 60 + Number(offsetMinutes)) * (sign === '-' ? -1 : 1);
  return composeUtc(Number(year), month, Number(day), Number(hour), Number(minute), Number(second), fraction, offset);
}

/**
 * A timestamp from a JSON log: ISO 8601 (a missing zone means UTC), the common-log
 * format, or an epoch number or numeric string whose unit (s, ms, µs, ns) is inferred
 * from its magnitude. Returns UTC ms, or undefined when the value is not a usable time.
 */
export function parseTimestampValue(value: unknown): number | undefined {
  if (typeof value === 'number') return fromEpoch(value);
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  if (NUMERIC.test(text)) return fromEpoch(Number(text));
  const iso = ISO_TIME.exec(text);
  if (iso) {
    const [, year, month, day, hour, minute, second, fraction, zone] = iso;
    return composeUtc(Number(year), Number(month) - 1, Number(day), Number(hour), Number(minute), Number(second ?? '0'), fraction, zoneOffsetMinutes(zone));
  }
  return parseCommonLogTimestamp(text);
}

function fromEpoch(value: number): number | undefined {
  if (!Number.isFinite(value) || value <= 0) return undefined;
  // Seconds stay below 1e11 until the year 5138, milliseconds below 1e14 until 5138 too, and so on.
  const ms = value < 1e11 ? value * 1000 : value < 1e14 ? value : value < 1e17 ? value / 1e3 : value / 1e6;
  const rounded = Math.floor(ms);
  return rounded >= EARLIEST && rounded < LATEST ? rounded : undefined;
}

function zoneOffsetMinutes(zone: string | undefined): number {
  if (zone === undefined || zone === 'Z' || zone === 'z') return 0;
  const sign = zone.startsWith('-') ? -1 : 1;
  const digits = zone.slice(1).replace(':', '');
  return sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2) || '0'));
}

function composeUtc(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
  fraction: string | undefined,
  offsetMinutes: number,
): number | undefined {
  if (month < 0 || month > 11 || day < 1 || hour > 23 || minute > 59 || second > 60) return undefined;
  const millis = fraction === undefined ? 0 : Math.floor(Number(`0.${fraction}`) * 1000);
  const local = Date.UTC(year, month, day, hour, minute, second, millis);
  // Date.UTC silently rolls 31 Feb into March; a log with such a date is corrupt.
  if (new Date(local).getUTCDate() !== day && second !== 60) return undefined;
  const utc = local - offsetMinutes * 60_000;
  return utc >= EARLIEST && utc < LATEST ? utc : undefined;
}
