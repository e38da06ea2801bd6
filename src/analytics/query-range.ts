import { validationFailed, type FieldError } from '../core/errors.js';
import type { RangePlan } from './range-plan.js';

/** A range's bounds, checked: `from` must not be after `to`. */
export function checkedRange(from: number | null | undefined, to: number | null | undefined): { from: number | null; to: number | null } {
  const start = from ?? null;
  const end = to ?? null;
  if (start !== null && end !== null && start > end) {
    throw validationFailed('dateFrom must not be after dateTo.', [{ path: 'dateFrom', message: 'must not be after dateTo' }]);
  }
  return { from: start, to: end };
}

/**
 * A date-time bound is answered from raw hits for the part of its day it cuts off;
 * those may already be pruned beyond the retention period, and an answer built from
 * half the data would look exact without being so.
 */
export function checkEdgesRetained(plan: RangePlan, range: { from: number | null; to: number | null }, rawHorizon: number, retentionDays: number): void {
  const errors: FieldError[] = [];
  for (const edge of plan.edges) {
    if (edge.start >= rawHorizon) continue;
    const path = range.from !== null && edge.start === Math.max(0, range.from) ? 'dateFrom' : 'dateTo';
    if (errors.some((error) => error.path === path)) continue;
    errors.push({
      path,
      message: `a time of day is honoured only within the ${retentionDays}-day raw-hit retention period (since ${new Date(rawHorizon).toISOString()}); give a date (YYYY-MM-DD) instead`,
    });
  }
  if (errors.length > 0) throw validationFailed('A date-time bound lies beyond the raw-hit retention period.', errors);
}
