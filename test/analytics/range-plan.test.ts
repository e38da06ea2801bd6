import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { planRange } from '../../src/analytics/range-plan.js';

const DAY = 86_400_000;

/** Which instants a plan covers: whole days plus edges. */
function covers(plan: ReturnType<typeof planRange>, instant: number): boolean {
  const day = Math.floor(instant / DAY);
  if (day >= plan.fromDay && day < plan.toDay) return true;
  return plan.edges.some((edge) => instant >= edge.start && instant < edge.end);
}

describe('planRange', () => {
  test('whole days plus edges cover exactly [from, to), never twice', () => {
    const bound = fc.option(fc.integer({ min: 0, max: 20 * DAY }), { nil: null });
    fc.assert(
      fc.property(bound, bound, fc.array(fc.integer({ min: 0, max: 21 * DAY }), { minLength: 20, maxLength: 20 }), (from, to, instants) => {
        if (from !== null && to !== null && from > to) return;
        const plan = planRange(from, to);
        expect(plan.edges.length).toBeLessThanOrEqual(2);
        for (const edge of plan.edges) {
          expect(edge.start).toBeLessThan(edge.end);
          // Edges never overlap the whole days.
          expect(Math.floor(edge.start / DAY) >= plan.toDay || Math.ceil(edge.end / DAY) <= plan.fromDay || plan.fromDay >= plan.toDay).toBe(true);
        }
        // Hits are never before the epoch (event validation), so neither are the instants checked.
        for (const instant of [...instants, from ?? 0, (to ?? 1) - 1, to ?? 0].filter((value) => value >= 0)) {
          const inside = (from === null || instant >= from) && (to === null || instant < to);
          expect(covers(plan, instant), `${instant} in [${from}, ${to})`).toBe(inside);
        }
      }),
    );
  });

  test('dates give whole days only; open bounds give no edges', () => {
    expect(planRange(3 * DAY, 5 * DAY)).toEqual({ fromDay: 3, toDay: 5, edges: [] });
    expect(planRange(null, null).edges).toEqual([]);
    expect(planRange(3 * DAY + 1, null)).toMatchObject({ fromDay: 4, edges: [{ start: 3 * DAY + 1, end: 4 * DAY }] });
    expect(planRange(3 * DAY + 5, 3 * DAY + 9)).toMatchObject({ edges: [{ start: 3 * DAY + 5, end: 3 * DAY + 9 }] });
  });
});
