import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * What the proxy does with one request for a job's event stream:
 * - pass: forwards it as it is;
 * - cut-after-first-event: forwards up to the end of the first event that has an id, then
 *   drops the connection mid-response, like a proxy or network failure would;
 * - end-after-first-event: the same, but ends the response cleanly, as a restarting
 *   server or a proxy's time limit would;
 * - unavailable: answers 503 with a problem body, as an overloaded server would;
 * - stall: answers 200 and then sends nothing, like a half-open connection.
 */
export type EventStreamMode = 'pass' | 'cut-after-first-event' | 'end-after-first-event' | 'unavailable' | 'stall';

export interface InterruptingProxy {
  url: string;
  /** One entry per request for an event stream, with its Last-Event-ID header. */
  eventRequests: Array<{ lastEventId: string | undefined }>;
  close(): Promise<void>;
}

const FIRST_EVENT = /(^|\n)id: [^\n]*\n[\s\S]*?\n\n/;
const FORWARDED_HEADERS = ['authorization', 'accept', 'content-type', 'last-event-id', 'idempotency-key'];

async function readBody(request: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return chunks.length === 0 ? undefined : Buffer.concat(chunks);
}

/** An HTTP proxy in front of a Docwright server that breaks event streams on request. */
export async function startInterruptingProxy(upstream: string, modes: EventStreamMode[]): Promise<InterruptingProxy> {
  const eventRequests: InterruptingProxy['eventRequests'] = [];

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const isEvents = /\/job\/[^/]+\/events(\?|$)/.test(request.url ?? '');
    const mode: EventStreamMode = isEvents ? (modes.shift() ?? 'pass') : 'pass';
    if (isEvents) {
      const header = request.headers['last-event-id'];
      eventRequests.push({ lastEventId: Array.isArray(header) ? header[0] : header });
    }
    if (mode === 'unavailable') {
      response.writeHead(503, { 'content-type': 'application/problem+json' });
      response.end(JSON.stringify({ status: 503, code: 'too_many_streams', detail: 'Too many open event streams; poll the job instead.' }));
      return;
    }
    if (mode === 'stall') {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.flushHeaders();
      return;
    }
    const headers: Record<string, string> = {};
    for (const name of FORWARDED_HEADERS) {
      const value = request.headers[name];
      if (typeof value === 'string') headers[name] = value;
    }
    const controller = new AbortController();
    response.on('close', () => controller.abort());
    const body = await readBody(request);
    const answer = await fetch(upstream + (request.url ?? '/'), { method: request.method, headers, body, signal: controller.signal });
    response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/octet-stream' });
    response.flushHeaders();
    if (answer.body === null) return void response.end();
    const decoder = new TextDecoder();
    const reader = answer.body.getReader();
    let seen = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (mode !== 'cut-after-first-event' && mode !== 'end-after-first-event') {
        response.write(value);
        continue;
      }
      seen += decoder.decode(value, { stream: true });
      const match = FIRST_EVENT.exec(seen);
      if (match) {
        // Dropped only once the event is on the wire, so the client has something to resume from.
        await new Promise<void>((resolve) => response.write(seen.slice(0, match.index + match[0].length), () => resolve()));
        await new Promise((resolve) => setTimeout(resolve, 20));
        if (mode === 'cut-after-first-event') response.destroy();
        else response.end();
        controller.abort();
        return;
      }
    }
    response.end();
  };

  const server = createServer((request, response) => {
    handle(request, response).catch(() => response.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    eventRequests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
