import { AI_AGENT_TABLE_VERSION } from './classification/classify-hit.js';
import type { AnalyticsStore, HitBatch } from './analytics-store.js';
import { AGENT_KIND_BASE, PAGE_KIND, REFERRAL_KIND } from './analytics-codes.js';
import { DictionaryCache } from './dictionary-cache.js';
import type { PreparedColumns } from './prepare-batch.js';
import type { AgentName } from './relabel-replays.js';

const NAMES_PER_DICTIONARY = 100_000;
const USER_AGENT_CACHE_SIZE = 50_000;

/**
 * Turns prepared events into raw hit rows: paths, agent names and user agents become
 * dictionary ids, mostly from memory.
 */
export class HitEncoder {
  /** One cache per (site, kind): keys are then the bare names, no composite strings per hit. */
  private readonly dimensions = new Map<string, DictionaryCache<string>>();
  private readonly userAgents = new DictionaryCache<string>(USER_AGENT_CACHE_SIZE);
  private readonly classifierVersions = new Map<string, number>();

  /** `tableVersion`: the agent table the hits were classified with (tests of reclassification use an older one). */
  constructor(
    private readonly store: AnalyticsStore,
    private readonly tableVersion: string = AI_AGENT_TABLE_VERSION,
  ) {}

  async encode(site: number, columns: PreparedColumns): Promise<HitBatch> {
    // The table and, when the verifier checks ranges, their fingerprint: a change of either is a new version to reclassify to.
    const versionName = classifierVersionName(this.tableVersion, columns.rangesVersion);
    let classifierVersion = this.classifierVersions.get(versionName);
    if (classifierVersion === undefined) {
      classifierVersion = await this.store.ensureClassifierVersion(versionName);
      this.classifierVersions.set(versionName, classifierVersion);
    }
    const count = columns.count;
    // Each distinct string once: its id, by the index the rows carry.
    const pageIdOf = await this.idsOf(columns.paths, this.dictionary(site, PAGE_KIND), (missing) => this.store.ensureDimensions(site, PAGE_KIND, missing));
    const userAgentIdOf = await this.idsOf(columns.userAgents, this.userAgents, (missing) => this.store.ensureUserAgents(missing));
    const referralIdOf =
      columns.referrals.length === 0
        ? new Int32Array(0)
        : await this.idsOf(columns.referrals, this.dictionary(site, REFERRAL_KIND), (missing) => this.store.ensureDimensions(site, REFERRAL_KIND, missing));
    const agentIdOf = await this.agentIds(site, columns.agents);

    const page = new Int32Array(count);
    const agent = new Int32Array(count);
    const userAgent = new Int32Array(count);
    const referral = new Int32Array(count);
    for (let row = 0; row < count; row++) {
      const referralIndex = columns.referralIndex[row]!;
      if (referralIndex >= 0) referral[row] = referralIdOf[referralIndex]!;
      page[row] = pageIdOf[columns.pathIndex[row]!]!;
      const agentIndex = columns.agentIndex[row]!;
      if (agentIndex >= 0) agent[row] = agentIdOf[agentIndex]!;
      const userAgentIndex = columns.userAgentIndex[row]!;
      if (userAgentIndex >= 0) userAgent[row] = userAgentIdOf[userAgentIndex]!;
    }
    return {
      site,
      count,
      at: columns.at.subarray(0, count),
      page,
      visitor: columns.visitor.subarray(0, count),
      classCode: columns.classCode.subarray(0, count),
      agent,
      userAgent,
      referrer: columns.referrer,
      markdownAccept: columns.markdownAccept.subarray(0, count),
      classifierVersion,
      eventId: columns.eventId,
      category: columns.category.subarray(0, count),
      verification: columns.verification.subarray(0, count),
      readKind: columns.readKind.subarray(0, count),
      status: columns.status.subarray(0, count),
      referral,
      addressBlock: columns.addressBlock,
      evidence: columns.evidence.subarray(0, count),
    };
  }

  /** The dimension ids of distinct (class, name) agents, in their order; created when missing. */
  async agentIds(site: number, agents: readonly AgentName[]): Promise<Int32Array> {
    const agentIdOf = new Int32Array(agents.length);
    const agentsByClass = new Map<number, number[]>();
    for (const [index, agent] of agents.entries()) {
      const indexes = agentsByClass.get(agent.classCode);
      if (indexes === undefined) agentsByClass.set(agent.classCode, [index]);
      else indexes.push(index);
    }
    for (const [classCode, indexes] of agentsByClass) {
      const kind = AGENT_KIND_BASE + classCode;
      const names = indexes.map((index) => agents[index]!.name);
      const ids = await this.idsOf(names, this.dictionary(site, kind), (missing) => this.store.ensureDimensions(site, kind, missing));
      indexes.forEach((agentIndex, position) => (agentIdOf[agentIndex] = ids[position]!));
    }
    return agentIdOf;
  }

  /** The ids of distinct `names`, in their order. */
  private async idsOf(names: string[], cache: DictionaryCache<string>, load: (missing: string[]) => Promise<Map<string, number>>): Promise<Int32Array> {
    const lookup = await cache.resolve(names, load);
    const ids = new Int32Array(names.length);
    names.forEach((name, index) => (ids[index] = lookup(name)));
    return ids;
  }

  /** Drops a deleted site's dictionary ids. */
  forget(site: number): void {
    for (const key of this.dimensions.keys()) if (key.startsWith(`${site}:`)) this.dimensions.delete(key);
  }

  private dictionary(site: number, kind: number): DictionaryCache<string> {
    const key = `${site}:${kind}`;
    let cache = this.dimensions.get(key);
    if (cache === undefined) {
      cache = new DictionaryCache<string>(NAMES_PER_DICTIONARY);
      this.dimensions.set(key, cache);
    }
    return cache;
  }
}

/**
 * The analytics_classifier_versions name of hits classified with `tableVersion` and
 * verified against ranges of fingerprint `rangesVersion` (none: the table's version alone).
 */
export function classifierVersionName(tableVersion: string, rangesVersion: string | null | undefined): string {
  return rangesVersion === null || rangesVersion === undefined ? tableVersion : `${tableVersion} ranges ${rangesVersion}`;
}
