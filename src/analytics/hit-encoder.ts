import { AI_AGENT_TABLE_VERSION } from './classification/classify-hit.js';
import type { AnalyticsStore, HitBatch } from './analytics-store.js';
import { AGENT_KIND_BASE, PAGE_KIND } from './analytics-codes.js';
import { DictionaryCache } from './dictionary-cache.js';
import type { PreparedColumns } from './prepare-batch.js';

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
  private classifierVersion: number | undefined;

  constructor(private readonly store: AnalyticsStore) {}

  async encode(site: number, columns: PreparedColumns): Promise<HitBatch> {
    this.classifierVersion ??= await this.store.ensureClassifierVersion(AI_AGENT_TABLE_VERSION);
    const count = columns.count;
    const agentNames = new Map<number, string[]>();
    for (let index = 0; index < count; index++) {
      const agent = columns.agent[index];
      if (agent === null || agent === undefined) continue;
      const classCode = columns.classCode[index]!;
      const names = agentNames.get(classCode) ?? [];
      names.push(agent);
      agentNames.set(classCode, names);
    }
    const pageIds = await this.dictionary(site, PAGE_KIND).resolve(columns.path, (missing) => this.store.ensureDimensions(site, PAGE_KIND, missing));
    const agentIds = new Map<number, (name: string) => number>();
    for (const [classCode, names] of agentNames) {
      const kind = AGENT_KIND_BASE + classCode;
      agentIds.set(classCode, await this.dictionary(site, kind).resolve(names, (missing) => this.store.ensureDimensions(site, kind, missing)));
    }
    const userAgentIds = await this.userAgents.resolve(
      columns.userAgent.filter((userAgent) => userAgent !== ''),
      (missing) => this.store.ensureUserAgents(missing),
    );

    const page = new Int32Array(count);
    const agent = new Int32Array(count);
    const userAgent = new Int32Array(count);
    for (let index = 0; index < count; index++) {
      page[index] = pageIds(columns.path[index]!);
      const name = columns.agent[index];
      if (name !== null && name !== undefined) agent[index] = agentIds.get(columns.classCode[index]!)!(name);
      const text = columns.userAgent[index]!;
      if (text !== '') userAgent[index] = userAgentIds(text);
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
      classifierVersion: this.classifierVersion,
      eventId: columns.eventId,
    };
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
