import type { HitCategory, Verification } from '../classification/hit-category.js';
import type { StoredAddress } from './address-block.js';

/** The signature headers of one request, with the request line parts RFC 9421 signs. */
export interface SignatureHeaders {
  signature: string;
  signatureInput: string;
  signatureAgent?: string | null;
  method: string;
  authority: string;
  path: string;
}

/** A nonce new to this process: its key in the shared table, until when, and which event used it. */
export interface SeenNonce {
  key: string;
  expiresAt: number;
  owner: string;
}
/** What a verifier sees of a hit: the claim (category, agent, operator) and the evidence. */
export interface VerificationInput {
  category: HitCategory;
  agent: string | null;
  operator: string | null;
  /** The client address; used for the check and never stored. */
  ip: string | null;
  signature?: SignatureHeaders | null;
  /** When the request was made (ms since the epoch): a signature's created/expires window is checked at this instant. Default: the verifier's clock. */
  at?: number | null;
  /** The event's id, when the sender gave one: a retried event reusing its nonce is not a replay. */
  eventId?: string | null;
  /**
   * The project's site hosts (normalised, siteAuthorities): a signature made for another
   * @authority is a replay from elsewhere. Null or absent: the project names no site, so a
   * signature proves nothing about it and the other checks decide.
   */
  authorities?: readonly string[] | null;
  /** The project the hit is for: the key directory it names is fetched on that project's budget (directory-fetch-queue.ts). */
  projectId?: string | null;
  /** Hears the hit's nonce when this process saw it first; the batch claims it deployment-wide in the transaction that stores it. */
  onNonce?: ((nonce: SeenNonce) => void) | null;
}

/**
 * Decides how far a hit's claimed identity is proven. Synchronous and without I/O: it runs
 * in the ingest worker, so key directories and ranges are fetched elsewhere and handed in.
 */
export interface HitVerifier {
  verify(input: VerificationInput): Verification;
  /** What decided the last verify(); absent: nothing is checked (claim only). */
  readonly lastEvidence?: VerifierEvidenceSource;
  /** The version of the ranges it checks against (their fingerprint); absent when it checks none. */
  readonly rangesVersion?: string;
  /** What a non-human hit from `ip` stores of it for re-verification (address-block.ts); never the address. */
  storedAddress?(ip: string): StoredAddress | null;
}

/** Which evidence decided a verification: the signature, reverse DNS, or the address (the ranges, or nothing). */
export type VerifierEvidenceSource = 'signature' | 'dns' | 'address';

/** The verifier when nothing can be checked: humans carry no verdict, everything else is only claimed. */
export const claimOnlyVerifier: HitVerifier = Object.freeze({
  verify(input: VerificationInput): Verification {
    return input.category === 'human' ? 'none' : 'claimed';
  },
});
