import type { HitClass } from './classification/classify-hit.js';

/**
 * The small integers the analytics tables store instead of strings. They are part of
 * the on-disk format: never renumber, only append.
 */
export const CLASS_CODES: Readonly<Record<HitClass, number>> = Object.freeze({
  human: 1,
  ai: 2,
  'ai-search': 3,
  'ai-training': 4,
  bot: 5,
});

export const CLASS_BY_CODE: ReadonlyMap<number, HitClass> = new Map(
  (Object.entries(CLASS_CODES) as Array<[HitClass, number]>).map(([name, code]) => [code, name]),
);

/** Dimension kinds in analytics_dimensions. */
export const PAGE_KIND = 1;
/** Agents are keyed per class (kind = AGENT_KIND_BASE + class code): a bot fetching Markdown is a different row. */
export const AGENT_KIND_BASE = 10;

/**
 * The site as a whole is dimension 0; crawler class c is dimension -c (human and ai
 * visitors per class are the site's own groups). Neither has a dictionary row.
 */
export const SITE_DIMENSION = 0;
export const classDimension = (classCode: number): number => -classCode;

/**
 * Groups a visit day can belong to, as bits of analytics_visit_days.mask. A group is
 * counted on its own in analytics_visitor_counts; EITHER_GROUP is "human or ai" (the
 * visitors endpoint's total), ANY_GROUP by the crawler-class and agent dimensions.
 */
export const HUMAN_GROUP = 1;
export const AI_GROUP = 2;
export const EITHER_GROUP = 3;
export const ANY_GROUP = 4;

export const DAY_MS = 86_400_000;

export const dayOf = (ms: number): number => Math.floor(ms / DAY_MS);
