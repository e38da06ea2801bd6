import type { FieldError } from '../core/errors.js';
import { CATEGORY_CODES, CLASS_CODES, EVIDENCE_CODES, READ_KIND_CODES, VERIFICATION_CODES, dayOf } from './analytics-codes.js';
import { aiReferralOf } from './classification/ai-referral.js';
import { classifyHit, type Classification, type HitInput } from './classification/classify-hit.js';
import { isMarkdownRequest, prefersMarkdown } from './classification/markdown-request.js';
import { readKindOf } from './classification/read-kind.js';
import { claimOnlyVerifier, type HitVerifier, type SeenNonce } from './verification/hit-verifier.js';
import type { NonceClaim } from './verification/nonce-ledger.js';
import { verifyHit } from './verification/verify-hit.js';
import { validateEvent, type EventRejection, type EventTimeWindow } from './event-validation.js';
import { decodeUtf8Marked } from './utf8-text.js';
import type { VisitorIdentity } from './visitor-identity.js';

export const MAX_BATCH_EVENTS = 1_000;

/** What a batch needs besides its events; plain data, so it can be posted to a worker. */
export interface BatchContext {
  projectId: string;
  rotateDaily: boolean;
  window: EventTimeWindow;
  /** The hosts a signature's @authority must name (siteAuthorities); null: the project names no site. */
  authorities?: readonly string[] | null;
}

/**
 * The valid events of a batch, column by column. Typed arrays transfer to and from
 * workers for free; strings are copied, so each distinct path, agent and user agent is
 * listed once and rows point at it by index.
 */
export interface PreparedColumns {
  count: number;
  at: Float64Array;
  visitor: BigInt64Array;
  classCode: Uint8Array;
  markdownAccept: Uint8Array;
  /** CATEGORY_CODES, VERIFICATION_CODES and READ_KIND_CODES per row (migration 013). */
  category: Uint8Array;
  verification: Uint8Array;
  readKind: Uint8Array;
  /** HTTP status of the response; 0 when unknown. */
  status: Uint16Array;
  /** Per row, an index into `referrals` (the AI product a human came from), or -1 for none. */
  referralIndex: Int32Array;
  referrals: string[];
  /** Per row, an index into `paths`. */
  pathIndex: Int32Array;
  paths: string[];
  /** Per row, an index into `agents`, or -1 for none. */
  agentIndex: Int32Array;
  /** Distinct (class, agent name) pairs: an agent is counted per class. */
  agents: Array<{ classCode: number; name: string }>;
  /** Per row, an index into `userAgents`, or -1 when the event had none. */
  userAgentIndex: Int32Array;
  userAgents: string[];
  referrer: Array<string | null>;
  eventId: Array<string | null>;
  /** Signed nonces this process saw first, by row: claimed deployment-wide in the transaction that stores the batch. */
  nonces: NonceClaim[];
  /** Per row, the block of a non-human hit's address kept for re-verification (address-block.ts), else null; never the address. */
  addressBlock: Array<string | null>;
  /** EVIDENCE_CODES per row: what decided the verification. */
  evidence: Uint8Array;
  /** The fingerprint of the ranges the verifier checked against; null when it checks none. */
  rangesVersion: string | null;
}

/** The typed arrays of prepared columns, for a worker's transfer list. */
export function transferableBuffers(columns: PreparedColumns): ArrayBuffer[] {
  return [
    columns.at,
    columns.visitor,
    columns.classCode,
    columns.markdownAccept,
    columns.category,
    columns.verification,
    columns.readKind,
    columns.status,
    columns.referralIndex,
    columns.pathIndex,
    columns.agentIndex,
    columns.userAgentIndex,
    columns.evidence,
  ].map((array) => array.buffer as ArrayBuffer);
}

export type PreparedBatch =
  { ok: true; columns: PreparedColumns; rejected: EventRejection[] } | { ok: false; status: number; code: string; message: string; errors?: FieldError[] };

function failure(code: string, message: string, errors?: FieldError[]): PreparedBatch {
  return errors === undefined ? { ok: false, status: 400, code, message } : { ok: false, status: 400, code, message, errors };
}

/** Reads the `{ events: [...] }` body of the events endpoint. */
export function parseEventsBody(body: Uint8Array | string): unknown[] | PreparedBatch {
  let parsed: unknown;
  try {
    // Plain JSON.parse: an own "__proto__" key is harmless here, nothing merges these objects.
    // Bytes that are not UTF-8 reject the event that holds them (decodeUtf8Marked), not the batch.
    parsed = JSON.parse(typeof body === 'string' ? body : decodeUtf8Marked(body));
  } catch {
    return failure('invalid_json', 'The request body is not valid JSON.');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return failure('validation_failed', 'The request body failed validation.', [{ path: 'events', message: 'the body must be an object { events: [...] }' }]);
  }
  const events: unknown = (parsed as { events?: unknown }).events;
  if (!Array.isArray(events))
    return failure('validation_failed', 'The request body failed validation.', [{ path: 'events', message: 'must be an array of events' }]);
  return events as unknown[];
}

/**
 * Everything per event that needs no database: validation, classification, verification
 * (verifyHit: the verifier, then applyVerification) and the visitor hash. Pure and synchronous,
 * so it runs in an ingest worker or inline.
 */
export function prepareBatch(
  events: readonly unknown[],
  context: BatchContext,
  identity: VisitorIdentity,
  verifier: HitVerifier = claimOnlyVerifier,
  /** The shipped table's classifier; tests of reclassification ingest with an older one. */
  classify: (input: HitInput) => Classification = classifyHit,
): PreparedBatch {
  if (events.length > MAX_BATCH_EVENTS) {
    return failure('validation_failed', `A batch holds at most ${MAX_BATCH_EVENTS} events.`, [
      { path: 'events', message: `must contain at most ${MAX_BATCH_EVENTS} items` },
    ]);
  }
  const size = events.length;
  const columns: PreparedColumns = {
    count: 0,
    at: new Float64Array(size),
    visitor: new BigInt64Array(size),
    classCode: new Uint8Array(size),
    markdownAccept: new Uint8Array(size),
    category: new Uint8Array(size),
    verification: new Uint8Array(size),
    readKind: new Uint8Array(size),
    status: new Uint16Array(size),
    referralIndex: new Int32Array(size),
    referrals: [],
    pathIndex: new Int32Array(size),
    paths: [],
    agentIndex: new Int32Array(size),
    agents: [],
    userAgentIndex: new Int32Array(size),
    userAgents: [],
    referrer: [],
    eventId: [],
    nonces: [],
    addressBlock: [],
    evidence: new Uint8Array(size),
    rangesVersion: verifier.rangesVersion ?? null,
  };
  const rejected: EventRejection[] = [];
  // A batch repeats few user agents. The classification depends on the user agent and on
  // whether the hit fetches Markdown, so that pair is the memo key; one lookup here
  // replaces the classifier's own LRU bookkeeping per hit, and also finds the indexes of
  // the user agent and the agent.
  const memo = new Map<string, { classification: Classification; classCode: number; userAgentIndex: number; agentIndex: number }>();
  const paths = new Map<string, number>();
  const userAgents = new Map<string, number>();
  const agents = new Map<string, number>();
  const referrals = new Map<string, number>();
  // Referrers repeat within a batch: each one's product is looked up once.
  const referralOfReferrer = new Map<string, string | null>();
  const indexIn = <Item>(map: Map<string, number>, list: Item[], key: string, item: () => Item): number => {
    let index = map.get(key);
    if (index === undefined) {
      index = list.push(item()) - 1;
      map.set(key, index);
    }
    return index;
  };
  // One callback for the batch (not a closure per hit): the verifier calls it during verify, for the current row.
  let row = 0;
  const onNonce = (nonce: SeenNonce): void => {
    columns.nonces.push({ row, ...nonce });
  };
  for (let index = 0; index < size; index++) {
    const event = validateEvent(events[index], index, context.window);
    if ('code' in event) {
      rejected.push(event);
      continue;
    }
    const memoKey = isMarkdownRequest(event) ? `\u0001${event.userAgent}` : event.userAgent;
    let known = memo.get(memoKey);
    if (known === undefined) {
      const classification = classify({ userAgent: event.userAgent, path: event.path, accept: event.accept });
      const classCode = CLASS_CODES[classification.class];
      const agent = classification.agent;
      known = {
        classification,
        classCode,
        userAgentIndex: event.userAgent === '' ? -1 : indexIn(userAgents, columns.userAgents, event.userAgent, () => event.userAgent),
        agentIndex: agent === null ? -1 : indexIn(agents, columns.agents, `${classCode}:${agent}`, () => ({ classCode, name: agent })),
      };
      memo.set(memoKey, known);
    }
    row = columns.count++;
    columns.at[row] = event.at;
    columns.visitor[row] =
      event.visitorId !== null
        ? identity.fromVisitorId(context.projectId, event.visitorId)
        : identity.fromAddress(context.projectId, event.ip ?? '', event.userAgent, context.rotateDaily ? dayOf(event.at) : null);
    // The verdict depends on the address and the signature, so it is per hit, not memoised.
    const claimed = known.classification;
    const { classification: counted, verification } = verifyHit(verifier, claimed, {
      ip: event.ip,
      signature: event.signature,
      at: event.at,
      eventId: event.id,
      authorities: context.authorities ?? null,
      projectId: context.projectId,
      onNonce,
    });
    let { classCode, agentIndex } = known;
    if (counted !== claimed) {
      // A spoofed claim counts as something else: its class and agent row follow.
      classCode = CLASS_CODES[counted.class];
      const agent = counted.agent;
      agentIndex = agent === null ? -1 : indexIn(agents, columns.agents, `${classCode}:${agent}`, () => ({ classCode, name: agent }));
    }
    columns.classCode[row] = classCode;
    storeEvidence(columns, row, verifier, counted.category === 'human' ? null : event.ip);
    columns.category[row] = CATEGORY_CODES[counted.category];
    columns.verification[row] = VERIFICATION_CODES[verification];
    columns.readKind[row] = READ_KIND_CODES[readKindOf(event)];
    columns.status[row] = event.status ?? 0;
    // An AI referral is a person arriving from an AI product (docs/classification.md).
    let referral: string | null = null;
    if (counted.category === 'human' && (event.referrer !== null || event.utmSource !== null)) {
      if (event.utmSource === null && event.referrer !== null) {
        referral = referralOfReferrer.get(event.referrer) ?? null;
        if (!referralOfReferrer.has(event.referrer)) {
          referral = aiReferralOf(event.referrer, null);
          referralOfReferrer.set(event.referrer, referral);
        }
      } else {
        referral = aiReferralOf(event.referrer, event.utmSource);
      }
    }
    columns.referralIndex[row] = referral === null ? -1 : indexIn(referrals, columns.referrals, referral, () => referral);
    columns.markdownAccept[row] = prefersMarkdown(event.accept) ? 1 : 0;
    let pathIndex = paths.get(event.path);
    if (pathIndex === undefined) {
      pathIndex = columns.paths.push(event.path) - 1;
      paths.set(event.path, pathIndex);
    }
    columns.pathIndex[row] = pathIndex;
    columns.agentIndex[row] = agentIndex;
    columns.userAgentIndex[row] = known.userAgentIndex;
    columns.referrer.push(event.referrer);
    columns.eventId.push(event.id);
  }
  return { ok: true, columns, rejected };
}

/**
 * What a non-human hit keeps for re-verification when the ranges change (the hit-address-evidence migration):
 * the block around its address and what decided its label. Humans keep nothing.
 */
function storeEvidence(columns: PreparedColumns, row: number, verifier: HitVerifier, ip: string | null): void {
  const source = verifier.lastEvidence;
  const stored = ip === null || verifier.storedAddress === undefined ? null : verifier.storedAddress(ip);
  columns.addressBlock[row] = stored?.block ?? null;
  if (source === 'signature') columns.evidence[row] = EVIDENCE_CODES.signature;
  else if (stored === null || source === undefined) columns.evidence[row] = EVIDENCE_CODES.none;
  else if (!stored.exact) columns.evidence[row] = EVIDENCE_CODES.inexact;
  else columns.evidence[row] = source === 'dns' ? EVIDENCE_CODES.dns : EVIDENCE_CODES.address;
}
