const numberFormat = new Intl.NumberFormat('en');
const dateTimeFormat = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short' });
const dateFormat = new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeZone: 'UTC' });
const relativeFormat = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });

export function formatNumber(value: number): string {
  return numberFormat.format(value);
}

export function formatDateTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : dateTimeFormat.format(date);
}

/** A UTC calendar date (YYYY-MM-DD) in words, e.g. "Jun 1, 2026". */
export function formatDay(day: string): string {
  const date = new Date(`${day}T00:00:00Z`);
  return Number.isNaN(date.getTime()) ? day : dateFormat.format(date);
}

const UNITS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ['year', 365 * 86_400_000],
  ['month', 30 * 86_400_000],
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
];

/** "5 minutes ago"; the absolute time belongs in a title or <time datetime>. */
export function formatRelative(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return '—';
  const delta = new Date(iso).getTime() - now;
  if (Number.isNaN(delta)) return iso;
  for (const [unit, size] of UNITS) {
    if (Math.abs(delta) >= size) return relativeFormat.format(Math.round(delta / size), unit);
  }
  return 'just now';
}

/** Change against the previous period, as shown on the analytics cards. */
export function formatChange(current: number, previous: number): { text: string; direction: 'up' | 'down' | 'flat' | 'new' } {
  if (previous === 0) return current === 0 ? { text: 'no change', direction: 'flat' } : { text: 'new', direction: 'new' };
  const percent = Math.round(((current - previous) / previous) * 100);
  if (percent === 0) return { text: '0%', direction: 'flat' };
  return { text: `${percent > 0 ? '+' : ''}${percent}%`, direction: percent > 0 ? 'up' : 'down' };
}

export function plural(count: number, one: string, many = `${one}s`): string {
  return `${formatNumber(count)} ${count === 1 ? one : many}`;
}
