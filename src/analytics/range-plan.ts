import { DAY_MS } from './analytics-codes.js';

/** A half-open interval [start, end) of milliseconds. */
export interface TimeWindow {
  start: number;
  end: number;
}

/**
 * How a query range [from, to) is answered: whole UTC days [fromDay, toDay) from the
 * rollups, and the parts of a day a date-time bound cuts off ("edges") from raw hits.
 * Open bounds become the first and a far-future day. A visitor is counted once however
 * the range is split, see docs/analytics.md.
 */
export interface RangePlan {
  fromDay: number;
  /** Exclusive; fromDay >= toDay means no whole day. */
  toDay: number;
  edges: TimeWindow[];
  /**
   * The first day whose raw hits every process keeps, a day after the retention horizon
   * (a margin for clocks): set by the service, for a store that may read raw hits beside
   * its rollups (ClickHouse's visitor cells). Absent: unknown, read no raw hits for whole days.
   */
  rawFromDay?: number;
}

/** Beyond any real data (year 2.7 million); keeps day arithmetic in 32-bit integers. */
export const OPEN_END_DAY = 1_000_000_000;

export function planRange(from: number | null, to: number | null): RangePlan {
  const start = from === null ? 0 : Math.max(0, from);
  const fromDay = Math.ceil(start / DAY_MS);
  const toDay = to === null ? OPEN_END_DAY : Math.max(0, Math.floor(to / DAY_MS));
  if (to !== null && start >= to) return { fromDay: 0, toDay: 0, edges: [] };
  if (fromDay >= toDay) {
    // No whole day inside: the range is one piece of a single day (or of two adjacent days).
    return { fromDay, toDay: fromDay, edges: [{ start, end: to ?? fromDay * DAY_MS }] };
  }
  const edges: TimeWindow[] = [];
  if (start < fromDay * DAY_MS) edges.push({ start, end: fromDay * DAY_MS });
  if (to !== null && to > toDay * DAY_MS) edges.push({ start: toDay * DAY_MS, end: to });
  return { fromDay, toDay, edges };
}
