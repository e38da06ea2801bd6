import { isRetryableError } from './analytics-retry.js';
import type { Job, JobsApi, JobStreamEvent } from './jobs-api.js';
import { ServerSentEventParser } from './jobs-sse-parser.js';

export interface FollowOptions {
  api: JobsApi;
  jobId: string;
  onEvent: (event: JobStreamEvent) => void;
  /** Things the user should know about the connection (reconnects, polling). */
  onNotice: (message: string) => void;
  /** Stop waiting after this long; the job itself keeps running. */
  timeoutMs?: number;
  pollIntervalMs?: number;
  /** Overrides the server's `retry:` advice between reconnects. */
  reconnectDelayMs?: number;
  /** The server sends a comment every 15 s; silence this long means a dead connection. */
  idleTimeoutMs?: number;
  /** Reconnects in a row that get nothing, before falling back to polling. */
  maxReconnects?: number;
}

export interface FollowResult {
  job: Job;
  timedOut: boolean;
}

const DEFAULT_RECONNECT_MS = 1_000;
const DEFAULT_POLL_MS = 1_000;
const DEFAULT_IDLE_MS = 45_000;
const DEFAULT_MAX_RECONNECTS = 5;
const MAX_POLL_FAILURES = 5;
/** The event a server sends before it ends a stream the client should reopen (docs/agent-jobs.md). */
const RECONNECT_EVENT = 'reconnect';

type ReadOutcome = { kind: 'ended' } | { kind: 'dropped'; reason: string } | { kind: 'deadline' };

function sleep(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, milliseconds)));
}

function toStreamEvent(id: string | undefined, type: string, data: string): JobStreamEvent | undefined {
  const numericId = Number(id);
  if (!Number.isSafeInteger(numericId)) return undefined;
  try {
    const parsed: unknown = JSON.parse(data);
    return { id: numericId, type, data: typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {} };
  } catch {
    return undefined;
  }
}

/**
 * Follows a job until it is no longer active. Progress comes from the event stream,
 * which is resumed with Last-Event-ID whenever it drops or the server ends it with a
 * `reconnect` event (a server shutting down: the next connection may reach another
 * process, and no notice is printed for it); if it cannot be opened at all,
 * or keeps failing, the job is polled instead. The end is always confirmed with GET job,
 * because the server ends the stream only once the job is settled (or after an hour).
 */
export async function followJob(options: FollowOptions): Promise<FollowResult> {
  const { api, jobId } = options;
  const deadline = options.timeoutMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + options.timeoutMs;
  const parser = new ServerSentEventParser();
  let lastEventId: string | undefined;
  let failuresInARow = 0;
  let everOpened = false;

  for (;;) {
    if (Date.now() >= deadline) return { job: await api.get(jobId), timedOut: true };
    const controller = new AbortController();
    const opening = await openWithDeadline(api, jobId, lastEventId, controller, deadline);
    if (opening === 'deadline') return { job: await api.get(jobId), timedOut: true };
    if (!opening.ok) {
      failuresInARow += 1;
      if (!everOpened || failuresInARow > (options.maxReconnects ?? DEFAULT_MAX_RECONNECTS)) {
        options.onNotice(`event stream unavailable (${opening.reason}); polling the job instead`);
        return pollJob(options, deadline);
      }
      await sleep(options.reconnectDelayMs ?? parser.retryMs ?? DEFAULT_RECONNECT_MS);
      continue;
    }
    everOpened = true;
    // Properties, not variables: the callback sets them, which narrowing cannot see.
    const progress = { received: false, reconnectAdvised: false };
    const outcome = await readStream(opening.response, controller, deadline, options.idleTimeoutMs ?? DEFAULT_IDLE_MS, (chunk) => {
      progress.received = true;
      for (const message of parser.push(chunk)) {
        lastEventId = message.id ?? lastEventId;
        // The server's last word before it ends a stream early (shutting down, or after an
        // hour): reconnect with Last-Event-ID, whichever process answers next.
        if (message.type === RECONNECT_EVENT) {
          progress.reconnectAdvised = true;
          continue;
        }
        const event = toStreamEvent(message.id, message.type, message.data);
        if (event) options.onEvent(event);
      }
    });
    if (progress.received) failuresInARow = 0;
    if (outcome.kind === 'deadline') return { job: await api.get(jobId), timedOut: true };
    let dropped = outcome.kind === 'dropped' ? outcome.reason : undefined;
    // After a `reconnect` event there is nothing to confirm (the job goes on): reopen after
    // the server's advice, and opening failures while it restarts are retried quietly.
    if (outcome.kind === 'ended' && !progress.reconnectAdvised) {
      try {
        const job = await api.get(jobId);
        if (job.status !== 'active') return { job, timedOut: false };
      } catch (error) {
        // A server restarting ends its streams cleanly and is briefly unreachable: reconnect.
        if (!isRetryableError(error)) throw error;
        dropped = (error as Error).message;
      }
    }
    if (dropped !== undefined) {
      failuresInARow += 1;
      if (failuresInARow > (options.maxReconnects ?? DEFAULT_MAX_RECONNECTS)) {
        options.onNotice(`event stream keeps failing (${dropped}); polling the job instead`);
        return pollJob(options, deadline);
      }
      options.onNotice(`event stream interrupted (${dropped}); reconnecting${lastEventId === undefined ? '' : ` after event ${lastEventId}`}`);
    }
    await sleep(Math.min(options.reconnectDelayMs ?? parser.retryMs ?? DEFAULT_RECONNECT_MS, deadline - Date.now()));
  }
}

async function openWithDeadline(api: JobsApi, jobId: string, lastEventId: string | undefined, controller: AbortController, deadline: number) {
  const timer = Number.isFinite(deadline) ? setTimeout(() => controller.abort(), Math.max(0, deadline - Date.now())) : undefined;
  try {
    const opening = await api.openEvents(jobId, lastEventId, controller.signal);
    return controller.signal.aborted ? 'deadline' : opening;
  } finally {
    clearTimeout(timer);
  }
}

async function readStream(
  response: Response,
  controller: AbortController,
  deadline: number,
  idleMs: number,
  onChunk: (text: string) => void,
): Promise<ReadOutcome> {
  // A fetch body is bytes; Node's types leave its chunks `any`.
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let abortedFor: 'deadline' | 'idle' | undefined;
  const deadlineTimer = Number.isFinite(deadline)
    ? setTimeout(
        () => {
          abortedFor = 'deadline';
          controller.abort();
        },
        Math.max(0, deadline - Date.now()),
      )
    : undefined;
  let idleTimer: NodeJS.Timeout | undefined;
  const armIdle = () => {
    clearTimeout(idleTimer);
    idleTimer = setTimeout(() => {
      abortedFor = 'idle';
      controller.abort();
    }, idleMs);
  };
  armIdle();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) {
        onChunk(decoder.decode());
        return { kind: 'ended' };
      }
      armIdle();
      onChunk(decoder.decode(value, { stream: true }));
    }
  } catch (error) {
    if (abortedFor === 'deadline') return { kind: 'deadline' };
    if (abortedFor === 'idle') return { kind: 'dropped', reason: `no data for ${idleMs < 1000 ? `${idleMs} ms` : `${Math.round(idleMs / 1000)} s`}` };
    return { kind: 'dropped', reason: (error as Error).message };
  } finally {
    clearTimeout(deadlineTimer);
    clearTimeout(idleTimer);
    controller.abort();
    reader.releaseLock();
  }
}

async function pollJob(options: FollowOptions, deadline: number): Promise<FollowResult> {
  const interval = options.pollIntervalMs ?? DEFAULT_POLL_MS;
  let failures = 0;
  let last: Job | undefined;
  for (;;) {
    try {
      last = await options.api.get(options.jobId);
      failures = 0;
      if (last.status !== 'active') return { job: last, timedOut: false };
    } catch (error) {
      failures += 1;
      if (!isRetryableError(error) || failures > MAX_POLL_FAILURES) throw error;
      options.onNotice(`polling failed (${(error as Error).message}); trying again`);
    }
    const remaining = deadline - Date.now();
    if (remaining <= 0) return { job: last ?? (await options.api.get(options.jobId)), timedOut: true };
    await sleep(Math.min(remaining, interval * 2 ** failures));
  }
}
