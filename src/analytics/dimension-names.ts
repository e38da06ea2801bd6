import type { AnalyticsStore } from './analytics-store.js';

export interface DimensionName {
  kind: number;
  name: string;
}

/**
 * Names of pages and agents by dimension id, per site. A dictionary row never changes,
 * so the only miss is a row created since the last load, which reloads the site.
 */
export class DimensionNames {
  private readonly sites = new Map<number, Map<number, DimensionName>>();

  constructor(private readonly store: AnalyticsStore) {}

  async lookup(site: number, ids: Iterable<number>): Promise<Map<number, DimensionName>> {
    let known = this.sites.get(site);
    const wanted = [...ids];
    if (known === undefined || wanted.some((id) => !known!.has(id))) {
      const rows = await this.store.select<{ id: number; kind: number; name: string }>('select id, kind, name from analytics_dimensions where site = ?', [
        site,
      ]);
      known = new Map(rows.map((row) => [Number(row.id), { kind: Number(row.kind), name: row.name }]));
      this.sites.set(site, known);
    }
    return known;
  }

  /** Drops a deleted site's names. */
  forget(site: number): void {
    this.sites.delete(site);
  }
}
