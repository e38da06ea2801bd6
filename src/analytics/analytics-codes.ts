import type { HitClass } from './classification/classify-hit.js';
import type { HitCategory, ReadKind, Verification } from './classification/hit-category.js';

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

/**
 * analytics_hits.category (migration 013). 0 is a hit stored before categories existed;
 * the reclassification job gives it one.
 */
export const UNCATEGORISED = 0;
export const CATEGORY_CODES: Readonly<Record<HitCategory, number>> = Object.freeze({
  human: 1,
  'ai-assistant': 2,
  'ai-agent': 3,
  'ai-coding-agent': 4,
  'ai-search': 5,
  'ai-training': 6,
  'ai-other': 7,
  bot: 8,
});

export const CATEGORY_BY_CODE: ReadonlyMap<number, HitCategory> = new Map(
  (Object.entries(CATEGORY_CODES) as Array<[HitCategory, number]>).map(([name, code]) => [code, name]),
);

/** analytics_hits.verification (migration 013). */
export const VERIFICATION_CODES: Readonly<Record<Verification, number>> = Object.freeze({ none: 0, claimed: 1, verified: 2, spoofed: 3 });

/** analytics_hits.read_kind (migration 013). */
export const READ_KIND_CODES: Readonly<Record<ReadKind, number>> = Object.freeze({ page: 0, markdown: 1, 'llms-txt': 2, 'llms-full-txt': 3 });

/** Dimension kinds in analytics_dimensions. */
export const PAGE_KIND = 1;
/** The AI product a human arrived from (analytics_hits.referral): "chatgpt.com", "perplexity.ai". */
export const REFERRAL_KIND = 3;
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

/**
 * analytics_hits.evidence (the hit-address-evidence migration): what decided a non-human hit's verification, so
 * a change of the published ranges can re-decide it (docs/classification.md). `none`: no
 * stored evidence (humans, hits stored before it); `address`: the ranges or nothing, re-decided
 * from address_block; `signature`: a Web Bot Auth signature, kept; `dns`: forward-confirmed
 * reverse DNS, kept unless the ranges now vouch for the block; `inexact`: a list cuts the
 * stored block, so the label is kept.
 */
export const EVIDENCE_CODES = Object.freeze({ none: 0, address: 1, signature: 2, dns: 3, inexact: 4 } as const);
export type EvidenceCode = (typeof EVIDENCE_CODES)[keyof typeof EVIDENCE_CODES];
