import type { FastifyReply, FastifyRequest } from 'fastify';
import { problemSchema } from '../app/problem.js';
import { DEFAULT_STREAM_LIMITS, type StreamSlots } from './stream-slots.js';

const HEARTBEAT_MS = 15_000;
/** At shutdown, how long a stream's last read may take before it ends with `reconnect` anyway. */
const FINAL_READ_MS = 2_000;
const MAX_STREAM_MS = 60 * 60_000;
/** The reconnect delay a stream's final `reconnect` event advises. */
export const RECONNECT_AFTER_MS = 1_000;

/** Why the server ended a stream whose subject goes on: the client should reconnect. */
export type ReconnectReason = 'shutdown' | 'time_limit';

/**
 * The last message of a stream the server ends while there is more to come: `event:
 * reconnect` with `{"reason", "retryMs"}`, and the same delay as the SSE `retry:` field,
 * so EventSource clients follow it unchanged. It carries no `id:`, so Last-Event-ID stays
 * the last real event's and the next connection (to any process) resumes right after it.
 */
export function reconnectEvent(reason: ReconnectReason): string {
  return `retry: ${RECONNECT_AFTER_MS}\nevent: reconnect\ndata: ${JSON.stringify({ reason, retryMs: RECONNECT_AFTER_MS })}\n\n`;
}

export interface EventStream {
  readonly closed: boolean;
  write(text: string): void;
  /** Runs when the stream closes, however it closes. */
  onClose(cleanup: () => void): void;
  close(): void;
  /** Sends the final `reconnect` event, then closes. */
  endWithReconnect(reason: ReconnectReason): void;
  /**
   * Runs `work` after the work already queued; calls made while one is waiting to start
   * are folded into it, so a burst of notifications costs one read. A failure closes the stream.
   */
  schedule(work: () => Promise<void>): void;
  /** Resolves once the queued work is done (the route's handler waits on it once). */
  settled(): Promise<void>;
}

const limits = DEFAULT_STREAM_LIMITS;

/** The answers of every event-stream route besides the stream itself: its slots' refusals. */
export const streamProblems = {
  429: problemSchema.describe(
    `too_many_streams_for_key: this key (or signed-in user) already has ${limits.perKey} open event streams (in this server process).`,
  ),
  503: problemSchema.describe(`too_many_streams: this server process has ${limits.perProcess.toLocaleString('en-US')} open event streams.`),
};

/** Whose slots a stream takes: the API key, or the signed-in user. */
export function streamOwner(request: FastifyRequest): string {
  const principal = request.principal;
  if (principal?.kind === 'key') return principal.keyId;
  // All of a user's sessions share one user's slots.
  if (principal?.kind === 'user') return `user:${principal.userId}`;
  return request.user === null ? '' : `user:${request.user.id}`;
}

/**
 * Takes a stream slot, then answers with a Server-Sent Events stream: keep-alive comments
 * every 15 s (so idle connections are not cut), and an end after an hour with a
 * `reconnect` event. At shutdown (slots.endAll()) every stream first reads once more what
 * it schedules (so a job whose turn ended during the drain still sends its final event and
 * ends as finished), then ends with a `reconnect` event and its connection closes, so the
 * server's close is not held up by it for more than FINAL_READ_MS. Throws the
 * slot's 429/503 problem before anything is written.
 */
export function openEventStream(request: FastifyRequest, reply: FastifyReply, slots: StreamSlots): EventStream {
  const release = slots.acquire(streamOwner(request), () => endForShutdown());
  reply.hijack();
  const response = reply.raw;
  response.writeHead(200, {
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-cache, no-transform',
    Connection: 'keep-alive',
    'X-Accel-Buffering': 'no',
    'X-Request-Id': request.id,
  });
  response.write('retry: 2000\n\n');

  let closed = false;
  let queued = false;
  let flushing: Promise<void> = Promise.resolve();
  let lastWork: (() => Promise<void>) | null = null;
  const cleanups: Array<() => void> = [];
  const close = () => {
    if (closed) return;
    closed = true;
    release();
    for (const cleanup of cleanups) cleanup();
    response.end();
  };
  const endWithReconnect = (reason: ReconnectReason) => {
    if (closed) return;
    response.write(reconnectEvent(reason));
    close();
    // A shutting-down server waits for every connection: this one ends once the final
    // event is flushed (end() flushes what is buffered, then sends FIN).
    if (reason === 'shutdown') request.raw.socket.end();
  };
  // The events written since the last notification (a notification may still be on its
  // way from another connection) are read once more before the stream is ended.
  const endForShutdown = async (): Promise<void> => {
    if (lastWork !== null && !closed) {
      stream.schedule(lastWork);
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([flushing, new Promise<void>((resolve) => (timer = setTimeout(resolve, FINAL_READ_MS)))]);
      clearTimeout(timer);
    }
    endWithReconnect('shutdown');
  };
  // The response closes when the client goes away (or after end()). A client already gone
  // before this point is caught below; it would otherwise hold its slot for an hour.
  response.on('close', close);
  cleanups.push(() => response.off('close', close));
  const heartbeat = setInterval(() => response.write(': keep-alive\n\n'), HEARTBEAT_MS);
  const limit = setTimeout(() => endWithReconnect('time_limit'), MAX_STREAM_MS);
  cleanups.push(
    () => clearInterval(heartbeat),
    () => clearTimeout(limit),
  );

  const stream: EventStream = {
    get closed() {
      return closed;
    },
    write: (text) => {
      if (!closed) response.write(text);
    },
    onClose: (cleanup) => {
      if (closed) cleanup();
      else cleanups.push(cleanup);
    },
    close,
    endWithReconnect,
    schedule: (work) => {
      lastWork = work;
      if (queued || closed) return;
      queued = true;
      flushing = flushing
        .then(() => {
          queued = false;
          return closed ? undefined : work();
        })
        .catch(() => close());
    },
    settled: () => flushing,
  };
  if (response.socket === null || response.socket.destroyed) close();
  return stream;
}
