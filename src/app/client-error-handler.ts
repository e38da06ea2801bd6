import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyBaseLogger } from 'fastify';
import { buildProblem, PROBLEM_CONTENT_TYPE } from './problem.js';

/** Node's codes for a request it gave up on before any route saw it. */
const ANSWERS: Record<string, { status: number; code: string; detail: string }> = {
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, code: 'request_timeout', detail: 'The request headers or body did not arrive in time.' },
  HPE_HEADER_OVERFLOW: { status: 431, code: 'headers_too_large', detail: 'The request headers are too large.' },
};
const MALFORMED = { status: 400, code: 'bad_request', detail: 'The request is not valid HTTP.' };

/**
 * Fastify's `clientErrorHandler`: errors on a connection before a request reached the
 * router (a slow client cut off by the header or request deadline, an oversized or
 * malformed head). Answers with a problem body like every other error, then closes.
 */
export function clientErrorHandler(this: { log: FastifyBaseLogger }, error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const answer = (error.code !== undefined ? ANSWERS[error.code] : undefined) ?? MALFORMED;
  this.log.debug({ code: error.code }, 'client error');
  // Node's own rule: answer only if no response has started on this connection (a route
  // may have answered early while the body was still trickling in); else just close.
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && inFlight?.headersSent !== true) {
    const requestId = randomUUID();
    const body = JSON.stringify(buildProblem({ ...answer, requestId }));
    socket.write(
      `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status]}\r\nContent-Type: ${PROBLEM_CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}
