import type { AnalyticsReader } from './analytics-store.js';
import { AGENT_KIND_BASE, AI_GROUP, CLASS_BY_CODE, CLASS_CODES, classDimension, HUMAN_GROUP, SITE_DIMENSION } from './analytics-codes.js';
import type { AgentTraffic, ClassTraffic, TrafficResult } from './analytics-types.js';
import { HIT_CLASSES } from './classification/classify-hit.js';
import type { DimensionNames } from './dimension-names.js';
import type { RangePlan } from './range-plan.js';
import { hitCounts, visitorCounts } from './range-counts.js';

/** Agents listed at most; the rest is summarised by hasMoreAgents. */
export const MAX_AGENTS = 100;

/** Hits and unique visitors per class (all five, always) and per named agent, busiest first. */
export async function trafficReport(store: AnalyticsReader, names: DimensionNames, site: number | null, plan: RangePlan): Promise<TrafficResult> {
  const classes: ClassTraffic[] = HIT_CLASSES.map((hitClass) => ({ class: hitClass, hits: 0, visitors: 0 }));
  if (site === null) return { classes, agents: [], hasMoreAgents: false };
  const classEntry = new Map(classes.map((entry) => [CLASS_CODES[entry.class], entry]));
  const agentHits = new Map<number, number>();
  for (const row of await hitCounts(store, site, plan)) {
    const entry = classEntry.get(row.classCode);
    if (entry) entry.hits += row.hits;
    if (row.agent !== 0) agentHits.set(row.agent, (agentHits.get(row.agent) ?? 0) + row.hits);
  }
  const agentVisitors = new Map<number, number>();
  for (const row of await visitorCounts(store, site, plan, 'traffic')) {
    if (row.dim === SITE_DIMENSION) {
      // Human and ai visitors are the site's groups; crawler classes have dimensions of their own.
      const entry = classEntry.get(row.grp === HUMAN_GROUP ? CLASS_CODES.human : row.grp === AI_GROUP ? CLASS_CODES.ai : -1);
      if (entry) entry.visitors += row.visitors;
    } else if (row.dim < 0) {
      const entry = classes.find((candidate) => classDimension(CLASS_CODES[candidate.class]) === row.dim);
      if (entry) entry.visitors += row.visitors;
    } else {
      agentVisitors.set(row.dim, (agentVisitors.get(row.dim) ?? 0) + row.visitors);
    }
  }
  const known = await names.lookup(site, agentHits.keys());
  const agents: AgentTraffic[] = [];
  for (const [dim, hits] of agentHits) {
    const name = known.get(dim);
    const hitClass = name === undefined ? undefined : CLASS_BY_CODE.get(name.kind - AGENT_KIND_BASE);
    if (name === undefined || hitClass === undefined || hits === 0) continue;
    agents.push({ agent: name.name, class: hitClass, hits, visitors: agentVisitors.get(dim) ?? 0 });
  }
  agents.sort((a, b) => b.hits - a.hits || b.visitors - a.visitors || (a.agent < b.agent ? -1 : a.agent > b.agent ? 1 : a.class < b.class ? -1 : 1));
  return { classes, agents: agents.slice(0, MAX_AGENTS), hasMoreAgents: agents.length > MAX_AGENTS };
}
