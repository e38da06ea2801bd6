import type { FieldError } from '../core/errors.js';
import { CLASS_CODES } from './analytics-codes.js';
import { classifyHit, type Classification } from './classification/classify-hit.js';
import { isMarkdownRequest, prefersMarkdown } from './classification/markdown-request.js';
import { dayOf } from './analytics-codes.js';
import { validateEvent, type EventRejection, type EventTimeWindow } from './event-validation.js';
import type { VisitorIdentity } from './visitor-identity.js';

export const MAX_BATCH_EVENTS = 1_000;

/** What a batch needs besides its events; plain data, so it can be posted to a worker. */
export interface BatchContext {
  projectId: string;
  rotateDaily: boolean;
  window: EventTimeWindow;
}

/** The valid events of a batch, column by column (typed arrays transfer to and from workers for free). */
export interface PreparedColumns {
  count: number;
  at: Float64Array;
  visitor: BigInt64Array;
  classCode: Uint8Array;
  markdownAccept: Uint8Array;
  path: string[];
  /** Agent name, or null. */
  agent: (string | null)[];
  /** '' when the event had no user agent. */
  userAgent: string[];
  referrer: (string | null)[];
  eventId: (string | null)[];
}

export type PreparedBatch =
  | { ok: true; columns: PreparedColumns; rejected: EventRejection[] }
  | { ok: false; status: number; code: string; message: string; errors?: FieldError[] };

function failure(code: string, message: string, errors?: FieldError[]): PreparedBatch {
  return errors === undefined ? { ok: false, status: 400, code, message } : { ok: false, status: 400, code, message, errors };
}

/** Reads the `{ events: [...] }` body of the events endpoint. */
export function parseEventsBody(body: Uint8Array | string): unknown[] | PreparedBatch {
  let parsed: unknown;
  try {
    // Plain JSON.parse: an own "__proto__" key is harmless here, nothing merges these objects.
    parsed = JSON.parse(typeof body === 'string' ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'));
  } catch {
    return failure('invalid_json', 'The request body is not valid JSON.');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return failure('validation_failed', 'The request body failed validation.', [{ path: 'events', message: 'the body must be an object { events: [...] }' }]);
  }
  const events = (parsed as { events?: unknown }).events;
  if (!Array.isArray(events)) return failure('validation_failed', 'The request body failed validation.', [{ path: 'events', message: 'must be an array of events' }]);
  return events;
}

/**
 * Everything per event that needs no database: validation, classification and the
 * visitor hash. Pure and synchronous, so it runs in an ingest worker or inline.
 */
export function prepareBatch(events: readonly unknown[], context: BatchContext, identity: VisitorIdentity): PreparedBatch {
  if (events.length > MAX_BATCH_EVENTS) {
    return failure('validation_failed', `A batch holds at most ${MAX_BATCH_EVENTS} events.`, [{ path: 'events', message: `must contain at most ${MAX_BATCH_EVENTS} items` }]);
  }
  const size = events.length;
  const columns: PreparedColumns = {
    count: 0,
    at: new Float64Array(size),
    visitor: new BigInt64Array(size),
    classCode: new Uint8Array(size),
    markdownAccept: new Uint8Array(size),
    path: [],
    agent: [],
    userAgent: [],
    referrer: [],
    eventId: [],
  };
  const rejected: EventRejection[] = [];
  // A batch repeats few user agents. The classification depends on the user agent and on
  // whether the hit fetches Markdown, so that pair is the memo key; one lookup here
  // replaces the classifier's own LRU bookkeeping per hit.
  const classifications = new Map<string, Classification>();
  for (let index = 0; index < size; index++) {
    const event = validateEvent(events[index], index, context.window);
    if ('code' in event) {
      rejected.push(event);
      continue;
    }
    const memoKey = isMarkdownRequest(event) ? `\u0001${event.userAgent}` : event.userAgent;
    let classification = classifications.get(memoKey);
    if (classification === undefined) {
      classification = classifyHit({ userAgent: event.userAgent, path: event.path, accept: event.accept });
      classifications.set(memoKey, classification);
    }
    const row = columns.count++;
    columns.at[row] = event.at;
    columns.visitor[row] =
      event.visitorId !== null
        ? identity.fromVisitorId(context.projectId, event.visitorId)
        : identity.fromAddress(context.projectId, event.ip ?? '', event.userAgent, context.rotateDaily ? dayOf(event.at) : null);
    columns.classCode[row] = CLASS_CODES[classification.class];
    columns.markdownAccept[row] = prefersMarkdown(event.accept) ? 1 : 0;
    columns.path.push(event.path);
    columns.agent.push(classification.agent);
    columns.userAgent.push(event.userAgent);
    columns.referrer.push(event.referrer);
    columns.eventId.push(event.id);
  }
  return { ok: true, columns, rejected };
}
