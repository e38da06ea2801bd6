import type { AnalyticsReader } from './analytics-store.js';
import { AI_GROUP, DAY_MS, EITHER_GROUP, HUMAN_GROUP } from './analytics-codes.js';
import type { DailyResult, DayVisitors } from './analytics-types.js';
import type { RangePlan } from './range-plan.js';
import { dailyCounts } from './range-counts.js';

/** One entry per UTC day touched by [from, to), zeros included, oldest first. */
export async function dailyReport(store: AnalyticsReader, site: number | null, plan: RangePlan, range: { from: number; to: number }): Promise<DailyResult> {
  const byDay = new Map<number, DayVisitors>();
  const firstDay = Math.floor(range.from / DAY_MS);
  const endDay = Math.ceil(range.to / DAY_MS);
  for (let day = firstDay; day < endDay; day++) {
    byDay.set(day, { date: new Date(day * DAY_MS).toISOString().slice(0, 10), human: 0, ai: 0, total: 0 });
  }
  if (site !== null) {
    for (const row of await dailyCounts(store, site, plan)) {
      const entry = byDay.get(row.day);
      if (entry === undefined) continue;
      if (row.grp === HUMAN_GROUP) entry.human += row.visitors;
      else if (row.grp === AI_GROUP) entry.ai += row.visitors;
      else if (row.grp === EITHER_GROUP) entry.total += row.visitors;
    }
  }
  return { dateFrom: new Date(range.from).toISOString(), dateTo: new Date(range.to).toISOString(), days: [...byDay.values()] };
}
