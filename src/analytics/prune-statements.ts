import type { Dialect } from '../db/database.js';
import { dayOf } from './analytics-codes.js';

/**
 * Retention. Raw hits and event ids older than the horizon go. Visit days before the
 * horizon day are only ever needed as "the previous visit day" of a future hit, and no
 * future hit can be older than the horizon (pruned_before makes sure), so of those only
 * the latest per visitor, dimension and group has to stay. The aggregated counts stay
 * forever: day-granular history remains exact after its raw hits are gone.
 *
 * Hits not yet folded are never deleted, so a lagging fold cannot lose them.
 */
export interface PruneStatements {
  /** Takes (before). */
  hits: string;
  /** Takes (before). */
  eventIds: string;
  /** Takes (site, horizonDay, horizonDay). */
  visitDays: string;
  /** Takes (before). */
  raiseWatermark: string;
  dayOf(ms: number): number;
}

export function pruneStatements(dialect: Dialect): PruneStatements {
  const greatest = dialect === 'postgres' ? 'greatest' : 'max';
  return {
    hits: `delete from analytics_hits where site in (select site from analytics_sites) and at < ? and ${
      dialect === 'postgres' ? 'batch <> all (select id from analytics_ingest_batches)' : "seq <= (select value from analytics_state where name = 'folded_seq')"
    }`,
    eventIds: 'delete from analytics_event_ids where at < ?',
    visitDays: `delete from analytics_visit_days as old where old.site = ? and old.day < ? and exists (
      select 1 from analytics_visit_days newer
      where newer.site = old.site and newer.dim = old.dim and newer.visitor = old.visitor
        and newer.day > old.day and newer.day < ? and (newer.mask & old.mask) = old.mask)`,
    raiseWatermark: `update analytics_state set value = ${greatest}(value, ?) where name = 'pruned_before'`,
    dayOf,
  };
}
