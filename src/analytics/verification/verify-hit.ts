import type { Verification } from '../classification/hit-category.js';
import { applyVerification, type CategorisedClassification } from './apply-verification.js';
import type { HitVerifier, SeenNonce, SignatureHeaders } from './hit-verifier.js';
import { signedAgentClaim } from './signed-agent-claim.js';

/** What the pipeline knows of one hit besides its classification. */
export interface HitEvidence {
  ip: string | null;
  signature: SignatureHeaders | null;
  /** The hit's instant, ms since the epoch. */
  at: number;
  eventId: string | null;
  /** The site's hosts a signature must be made for; null when the project names none. */
  authorities: readonly string[] | null;
  /** The project the hit is for; a key directory it names is fetched on that project's budget. */
  projectId?: string | null;
  onNonce?: ((nonce: SeenNonce) => void) | null;
}

/**
 * Verification for one hit, as the ingest pipeline runs it after classifying: a browser
 * User-Agent whose Signature-Agent names a known signer is first classified as that agent
 * (signed-agent-claim.ts), then the verifier labels the claim, then a spoofed hit stops
 * counting as the agent it claims (apply-verification.ts). Per hit, never memoized per
 * user agent: the address and the signature differ from hit to hit.
 */
export function verifyHit(
  verifier: HitVerifier,
  classified: CategorisedClassification,
  evidence: HitEvidence,
): { classification: CategorisedClassification; verification: Verification } {
  let classification = classified;
  if (classification.category === 'human' && evidence.signature !== null) {
    const claim = signedAgentClaim(evidence.signature);
    if (claim !== null) classification = { ...classification, class: 'ai', category: claim.category, agent: claim.agent, operator: claim.operator };
  }
  const verification = verifier.verify({
    category: classification.category,
    agent: classification.agent,
    operator: classification.operator,
    ip: evidence.ip,
    signature: evidence.signature,
    at: evidence.at,
    eventId: evidence.eventId,
    authorities: evidence.authorities,
    projectId: evidence.projectId ?? null,
    onNonce: evidence.onNonce ?? null,
  });
  return { classification: applyVerification(classification, verification), verification };
}
