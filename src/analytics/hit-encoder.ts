import { AI_AGENT_TABLE_VERSION, classifyHit } from './classification/classify-hit.js';
import { prefersMarkdown } from './classification/markdown-request.js';
import type { AnalyticsStore, HitRow } from './analytics-store.js';
import { AGENT_KIND_BASE, CLASS_CODES, dayOf, PAGE_KIND } from './analytics-codes.js';
import { DictionaryCache } from './dictionary-cache.js';
import type { ValidEvent } from './event-validation.js';
import type { VisitorIdentity } from './visitor-identity.js';

const DIMENSION_CACHE_SIZE = 200_000;
const USER_AGENT_CACHE_SIZE = 50_000;

/**
 * Classifies validated events, derives their visitor numbers and encodes their strings
 * as dictionary ids: everything a raw hit row needs. The IP address goes into the
 * visitor hash and nowhere else.
 */
export class HitEncoder {
  private readonly dimensions = new DictionaryCache<string>(DIMENSION_CACHE_SIZE);
  private readonly userAgents = new DictionaryCache<string>(USER_AGENT_CACHE_SIZE);
  private classifierVersion: number | undefined;

  constructor(
    private readonly store: AnalyticsStore,
    private readonly identity: VisitorIdentity,
  ) {}

  async encode(projectId: string, site: number, events: readonly ValidEvent[], rotateDaily: boolean): Promise<HitRow[]> {
    this.classifierVersion ??= await this.store.ensureClassifierVersion(AI_AGENT_TABLE_VERSION);
    const classifierVersion = this.classifierVersion;
    const classified = events.map((event) => {
      const classification = classifyHit({ userAgent: event.userAgent, path: event.path, accept: event.accept });
      const visitor =
        event.visitorId !== null
          ? this.identity.fromVisitorId(projectId, event.visitorId)
          : this.identity.fromAddress(projectId, event.ip ?? '', event.userAgent, rotateDaily ? dayOf(event.at) : null);
      return { event, classCode: CLASS_CODES[classification.class], agent: classification.agent, visitor };
    });

    const dimensionKeys = new Set<string>();
    for (const { event, classCode, agent } of classified) {
      dimensionKeys.add(dimensionKey(site, PAGE_KIND, event.path));
      if (agent !== null) dimensionKeys.add(dimensionKey(site, AGENT_KIND_BASE + classCode, agent));
    }
    const dimensionIds = await this.dimensions.resolve(dimensionKeys, (missing) => this.loadDimensions(site, missing));
    const userAgentIds = await this.userAgents.resolve(
      events.flatMap((event) => (event.userAgent === '' ? [] : [event.userAgent])),
      (missing) => this.store.ensureUserAgents(missing),
    );

    return classified.map(({ event, classCode, agent, visitor }) => ({
      site,
      at: event.at,
      page: dimensionIds.get(dimensionKey(site, PAGE_KIND, event.path))!,
      visitor,
      classCode,
      agent: agent === null ? null : dimensionIds.get(dimensionKey(site, AGENT_KIND_BASE + classCode, agent))!,
      userAgent: event.userAgent === '' ? null : userAgentIds.get(event.userAgent)!,
      referrer: event.referrer,
      markdownAccept: prefersMarkdown(event.accept) ? 1 : 0,
      classifierVersion,
      eventId: event.id,
    }));
  }

  /** Groups missing dictionary keys by kind: one store call per kind. */
  private async loadDimensions(site: number, missing: readonly string[]): Promise<Map<string, number>> {
    const byKind = new Map<number, string[]>();
    for (const key of missing) {
      const { kind, name } = parseDimensionKey(key);
      const names = byKind.get(kind) ?? [];
      names.push(name);
      byKind.set(kind, names);
    }
    const ids = new Map<string, number>();
    for (const [kind, names] of byKind) {
      for (const [name, id] of await this.store.ensureDimensions(site, kind, names)) ids.set(dimensionKey(site, kind, name), id);
    }
    return ids;
  }
}

function dimensionKey(site: number, kind: number, name: string): string {
  return `${site}\u0000${kind}\u0000${name}`;
}

function parseDimensionKey(key: string): { kind: number; name: string } {
  const first = key.indexOf('\u0000');
  const second = key.indexOf('\u0000', first + 1);
  return { kind: Number(key.slice(first + 1, second)), name: key.slice(second + 1) };
}
