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

/**
 * An ISO 8601 date-time (`2025-06-01T12:30:00Z`, `…+02:00`, fractions of a second);
 * without an offset it is UTC. Returns milliseconds since the epoch, or null.
 */
export function parseDateTime(value: string): number | null {
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
