import { AI_AGENT_TABLE_VERSION, classifyHit } from './classification/classify-hit.js';
import { prefersMarkdown } from './classification/markdown-request.js';
import type { AnalyticsStore, HitRow } from './analytics-store.js';
import { AGENT_KIND_BASE, CLASS_CODES, dayOf, PAGE_KIND } from './analytics-codes.js';
import { DictionaryCache } from './dictionary-cache.js';
import type { ValidEvent } from './event-validation.js';
import type { VisitorIdentity } from './visitor-identity.js';

const NAMES_PER_DICTIONARY = 100_000;
const USER_AGENT_CACHE_SIZE = 50_000;

/**
 * Classifies validated events, derives their visitor numbers and encodes their strings
 * as dictionary ids: everything a raw hit row needs. The IP address goes into the
 * visitor hash and nowhere else.
 */
export class HitEncoder {
  /** One cache per (site, kind): keys are then the bare names, no composite strings per hit. */
  private readonly dimensions = new Map<string, DictionaryCache<string>>();
  private readonly userAgents = new DictionaryCache<string>(USER_AGENT_CACHE_SIZE);
  private classifierVersion: number | undefined;

  constructor(
    private readonly store: AnalyticsStore,
    private readonly identity: VisitorIdentity,
  ) {}

  async encode(projectId: string, site: number, events: readonly ValidEvent[], rotateDaily: boolean): Promise<HitRow[]> {
    this.classifierVersion ??= await this.store.ensureClassifierVersion(AI_AGENT_TABLE_VERSION);
    const classifierVersion = this.classifierVersion;
    const rows: HitRow[] = new Array(events.length);
    const paths: string[] = new Array(events.length);
    const agentOf: (string | null)[] = new Array(events.length);
    const agentNames = new Map<number, string[]>();
    const userAgents: string[] = [];
    for (let index = 0; index < events.length; index++) {
      const event = events[index]!;
      const classification = classifyHit({ userAgent: event.userAgent, path: event.path, accept: event.accept });
      const classCode = CLASS_CODES[classification.class];
      paths[index] = event.path;
      agentOf[index] = classification.agent;
      if (classification.agent !== null) {
        const names = agentNames.get(classCode) ?? [];
        names.push(classification.agent);
        agentNames.set(classCode, names);
      }
      if (event.userAgent !== '') userAgents.push(event.userAgent);
      rows[index] = {
        site,
        at: event.at,
        page: 0,
        visitor:
          event.visitorId !== null
            ? this.identity.fromVisitorId(projectId, event.visitorId)
            : this.identity.fromAddress(projectId, event.ip ?? '', event.userAgent, rotateDaily ? dayOf(event.at) : null),
        classCode,
        agent: null,
        userAgent: null,
        referrer: event.referrer,
        markdownAccept: prefersMarkdown(event.accept) ? 1 : 0,
        classifierVersion,
        eventId: event.id,
      };
    }

    const pageIds = await this.dictionary(site, PAGE_KIND).resolve(paths, (missing) => this.store.ensureDimensions(site, PAGE_KIND, missing));
    const agentIds = new Map<number, Map<string, number>>();
    for (const [classCode, names] of agentNames) {
      const kind = AGENT_KIND_BASE + classCode;
      agentIds.set(classCode, await this.dictionary(site, kind).resolve(names, (missing) => this.store.ensureDimensions(site, kind, missing)));
    }
    const userAgentIds = await this.userAgents.resolve(userAgents, (missing) => this.store.ensureUserAgents(missing));

    for (let index = 0; index < rows.length; index++) {
      const row = rows[index]!;
      const event = events[index]!;
      const agent = agentOf[index];
      row.page = pageIds.get(event.path)!;
      if (agent !== null && agent !== undefined) row.agent = agentIds.get(row.classCode)!.get(agent)!;
      if (event.userAgent !== '') row.userAgent = userAgentIds.get(event.userAgent)!;
    }
    return rows;
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
