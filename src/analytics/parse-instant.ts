/**
 * Strict ISO 8601 parsing in UTC. Date.parse is not used: it reads a date-time without
 * an offset as local time and rolls 2025-02-30 over into March.
 */
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(Z|z|[+-]\d{2}(?::?\d{2})?)?$/;

const MAX_MS = 8.64e15;

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

function daysInMonth(year: number, month: number): number {
  const leap = month === 2 && year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return leap ? 29 : DAYS_IN_MONTH[month - 1]!;
}

function validDate(year: number, month: number, day: number): boolean {
  return month >= 1 && month <= 12 && day >= 1 && day <= daysInMonth(year, month);
}

function utc(year: number, month: number, day: number, hours = 0, minutes = 0, seconds = 0, milliseconds = 0): number {
  if (year >= 100) return Date.UTC(year, month - 1, day, hours, minutes, seconds, milliseconds);
  const date = new Date(0);
  // setUTCFullYear, not Date.UTC: Date.UTC maps years 0…99 to 1900…1999.
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hours, minutes, seconds, milliseconds);
  return date.getTime();
}

/** `YYYY-MM-DD` as UTC midnight, or null. */
export function parseDate(value: string): number | null {
  const match = DATE.exec(value);
  if (!match) return null;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  return validDate(year, month, day) ? utc(year, month, day) : null;
}

/** Digits at value[start, start + count) as a number, or -1 if any is not a digit. */
function digits(value: string, start: number, count: number): number {
  let result = 0;
  for (let index = start; index < start + count; index++) {
    const code = value.charCodeAt(index) - 48;
    if (code < 0 || code > 9) return -1;
    result = result * 10 + code;
  }
  return result;
}

/** `YYYY-MM-DDTHH:MM:SS.sssZ` exactly, what toISOString and most senders produce: parsed without a regex. */
function parseCanonical(value: string): number | null | undefined {
  if (value.length !== 24 || value.charCodeAt(23) !== 90 /* Z */ || value.charCodeAt(10) !== 84 /* T */) return undefined;
  if (value[4] !== '-' || value[7] !== '-' || value[13] !== ':' || value[16] !== ':' || value[19] !== '.') return undefined;
  const year = digits(value, 0, 4);
  const month = digits(value, 5, 2);
  const day = digits(value, 8, 2);
  const hours = digits(value, 11, 2);
  const minutes = digits(value, 14, 2);
  const seconds = digits(value, 17, 2);
  const milliseconds = digits(value, 20, 3);
  if (year < 0 || month < 0 || day < 0 || hours < 0 || minutes < 0 || seconds < 0 || milliseconds < 0) return undefined;
  if (!validDate(year, month, day) || hours > 23 || minutes > 59 || seconds > 59) return null;
  return utc(year, month, day, hours, minutes, seconds, milliseconds);
}

/**
 * An ISO 8601 date-time (`2025-06-01T12:30:00Z`, `…+02:00`, fractions of a second);
 * without an offset it is UTC. Returns milliseconds since the epoch, or null.
 */
export function parseDateTime(value: string): number | null {
  const canonical = parseCanonical(value);
  if (canonical !== undefined) return canonical;
  const match = DATE_TIME.exec(value);
  if (!match) return null;
  const [year, month, day, hours, minutes] = [Number(match[1]), Number(match[2]), Number(match[3]), Number(match[4]), Number(match[5])];
  const seconds = match[6] === undefined ? 0 : Number(match[6]);
  if (!validDate(year, month, day) || hours > 23 || minutes > 59 || seconds > 59) return null;
  const milliseconds = match[7] === undefined ? 0 : Math.floor(Number(`0.${match[7]}`) * 1000);
  let ms = utc(year, month, day, hours, minutes, seconds, milliseconds);
  const offset = match[8];
  if (offset !== undefined && offset !== 'Z' && offset !== 'z') {
    const digits = offset.slice(1).replace(':', '');
    const offsetHours = Number(digits.slice(0, 2));
    const offsetMinutes = digits.length > 2 ? Number(digits.slice(2, 4)) : 0;
    if (offsetHours > 23 || offsetMinutes > 59) return null;
    const sign = offset.startsWith('-') ? -1 : 1;
    ms -= sign * (offsetHours * 60 + offsetMinutes) * 60_000;
  }
  return Math.abs(ms) <= MAX_MS ? ms : null;
}

/** A date or a date-time, as the visitors endpoint's dateFrom and dateTo take them. */
export function parseDateOrDateTime(value: string): number | null {
  return value.length === 10 ? parseDate(value) : parseDateTime(value);
}
