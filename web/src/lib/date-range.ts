const DAY_MS = 86_400_000;

export type RangePreset = '7d' | '30d' | '90d' | 'custom';
export const PRESETS: Array<{ id: Exclude<RangePreset, 'custom'>; days: number; label: string }> = [
  { id: '7d', days: 7, label: 'Last 7 days' },
  { id: '30d', days: 30, label: 'Last 30 days' },
  { id: '90d', days: 90, label: 'Last 90 days' },
];

/** A range of whole UTC days, as the API takes it: `from` inclusive, `to` exclusive. */
export interface DayRange {
  from: string;
  to: string;
  days: number;
}

export function isoDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export function dayMs(day: string): number {
  return Date.parse(`${day}T00:00:00Z`);
}

export function isDay(value: string | undefined): value is string {
  return value !== undefined && /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(dayMs(value));
}

/** The last `days` UTC days, today included. */
export function presetRange(days: number, now = Date.now()): DayRange {
  const to = dayMs(isoDay(now)) + DAY_MS;
  return { from: isoDay(to - days * DAY_MS), to: isoDay(to), days };
}

/** A custom range from the picker: both dates inclusive, as people read them. */
export function customRange(first: string, last: string): DayRange | null {
  if (!isDay(first) || !isDay(last)) return null;
  const from = dayMs(first);
  const to = dayMs(last) + DAY_MS;
  if (to <= from) return null;
  const days = Math.round((to - from) / DAY_MS);
  if (days > 366) return null;
  return { from: first, to: isoDay(to), days };
}

/** The period of the same length just before, for the change shown on the cards. */
export function previousRange(range: DayRange): DayRange {
  const from = dayMs(range.from);
  return { from: isoDay(from - range.days * DAY_MS), to: range.from, days: range.days };
}

/** The last day inside the range (its exclusive end minus one day). */
export function lastDay(range: DayRange): string {
  return isoDay(dayMs(range.to) - DAY_MS);
}
