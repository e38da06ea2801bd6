import type { AnalyticsService } from '../../src/analytics/analytics-service.js';
import type { HitBatch } from '../../src/analytics/analytics-store.js';
import {
  AGENT_KIND_BASE,
  CATEGORY_CODES,
  CLASS_CODES,
  PAGE_KIND,
  READ_KIND_CODES,
  REFERRAL_KIND,
  VERIFICATION_CODES,
} from '../../src/analytics/analytics-codes.js';
import type { HitClass } from '../../src/analytics/classification/classify-hit.js';
import type { HitCategory, ReadKind, Verification } from '../../src/analytics/classification/hit-category.js';

/** A stored hit with the columns of migration 013 set, as the taxonomy pipeline will write them. */
export interface TaxonomyHit {
  at: number;
  path: string;
  visitor: number;
  class: HitClass;
  /** Agent name (stored per class); none for most humans. */
  agent?: string;
  /** Absent: uncategorised (0), a hit stored before migration 013. */
  category?: HitCategory;
  verification?: Verification;
  readKind?: ReadKind;
  status?: number;
  referral?: string;
}

const ids = async (service: AnalyticsService, site: number, kind: number, names: Iterable<string>) =>
  service.store.ensureDimensions(site, kind, [...new Set(names)]);

/** Stores the hits through the store (no classifier), exactly with the columns given. */
export async function storeTaxonomyHits(service: AnalyticsService, projectId: string, hits: readonly TaxonomyHit[]): Promise<void> {
  if (hits.length === 0) return;
  const site = await service.store.ensureSite(projectId);
  const pages = await ids(
    service,
    site,
    PAGE_KIND,
    hits.map((hit) => hit.path),
  );
  const referrals = await ids(
    service,
    site,
    REFERRAL_KIND,
    hits.flatMap((hit) => (hit.referral === undefined ? [] : [hit.referral])),
  );
  const agents = new Map<string, number>();
  for (const hitClass of Object.keys(CLASS_CODES) as HitClass[]) {
    const named = hits.filter((hit) => hit.class === hitClass && hit.agent !== undefined).map((hit) => hit.agent!);
    for (const [name, id] of await ids(service, site, AGENT_KIND_BASE + CLASS_CODES[hitClass], named)) agents.set(`${hitClass}:${name}`, id);
  }
  const userAgent = (await service.store.ensureUserAgents(['test'])).get('test')!;
  const count = hits.length;
  const batch: HitBatch = {
    site,
    count,
    at: Float64Array.from(hits, (hit) => hit.at),
    page: Int32Array.from(hits, (hit) => pages.get(hit.path)!),
    visitor: BigInt64Array.from(hits, (hit) => BigInt(hit.visitor)),
    classCode: Uint8Array.from(hits, (hit) => CLASS_CODES[hit.class]),
    agent: Int32Array.from(hits, (hit) => (hit.agent === undefined ? 0 : agents.get(`${hit.class}:${hit.agent}`)!)),
    userAgent: Int32Array.from(hits, () => userAgent),
    referrer: hits.map(() => null),
    markdownAccept: new Uint8Array(count),
    classifierVersion: await service.store.ensureClassifierVersion('taxonomy-test'),
    eventId: hits.map(() => null),
    category: Uint8Array.from(hits, (hit) => (hit.category === undefined ? 0 : CATEGORY_CODES[hit.category])),
    verification: Uint8Array.from(hits, (hit) => VERIFICATION_CODES[hit.verification ?? 'none']),
    readKind: Uint8Array.from(hits, (hit) => READ_KIND_CODES[hit.readKind ?? 'page']),
    status: Uint16Array.from(hits, (hit) => hit.status ?? 0),
    referral: Int32Array.from(hits, (hit) => (hit.referral === undefined ? 0 : referrals.get(hit.referral)!)),
  };
  await service.store.insertHits(batch);
}
