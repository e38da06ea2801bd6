import type { Classification } from '../classification/classify-hit.js';
import type { HitCategory, Verification } from '../classification/hit-category.js';

/** A classification with its category, as the ingest pipeline stores it. */
export interface CategorisedClassification extends Classification {
  category: HitCategory;
}

/** Appended to the claimed agent's name for a spoofed hit, so reports can show forgeries apart. */
export const SPOOFED_SUFFIX = ' (spoofed)';

/**
 * What a hit counts as once its verification is known. A spoofed hit never counts as the
 * agent it claims: it becomes a `bot` (class and category) of no operator, named
 * "<claimed agent> (spoofed)", so it leaves the claimed agent's counts and the visitors
 * endpoint's `ai` while staying visible as a forgery (docs/classification.md, Verification).
 */
export function applyVerification(classification: CategorisedClassification, verification: Verification): CategorisedClassification {
  if (verification !== 'spoofed') return classification;
  return {
    ...classification,
    class: 'bot',
    category: 'bot',
    agent: classification.agent === null ? null : `${classification.agent}${SPOOFED_SUFFIX}`,
    operator: null,
  };
}
