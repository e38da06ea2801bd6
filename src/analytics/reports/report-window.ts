import { validationFailed } from '../../core/errors.js';
import { checkedRange } from '../query-range.js';

/** The instants a raw-hit report reads: [from, to), ms since the epoch, both known. */
export interface ReportWindow {
  from: number;
  to: number;
}

/**
 * The reports over the new hit columns (agents, pages, agent 4xx) read the raw hits, which
 * are kept for the retention period only. An open `dateFrom` starts at the raw-hit
 * horizon and an open `dateTo` ends after the latest instant a hit may carry; a `dateFrom`
 * before the horizon is a 400, so an answer never silently covers less than was asked.
 */
export function reportWindow(range: { from?: number | null; to?: number | null }, horizon: number, latest: number, retentionDays: number): ReportWindow {
  const checked = checkedRange(range.from, range.to);
  if (checked.from !== null && checked.from < horizon) {
    throw validationFailed('dateFrom lies beyond the raw-hit retention period.', [
      {
        path: 'dateFrom',
        message: `this report reads raw hits, kept for ${retentionDays} days: dateFrom must not be before ${new Date(horizon).toISOString()}`,
      },
    ]);
  }
  const to = checked.to ?? latest;
  return { from: Math.min(checked.from ?? horizon, to), to };
}

/** The window as the answers name it (ISO 8601, `dateTo` exclusive). */
export function answeredRange(window: ReportWindow): { dateFrom: string; dateTo: string } {
  return { dateFrom: new Date(window.from).toISOString(), dateTo: new Date(window.to).toISOString() };
}

/** A window with no instant in it (dateFrom equal to dateTo, or an open start after the end). */
export const isEmptyWindow = (window: ReportWindow): boolean => window.from >= window.to;
