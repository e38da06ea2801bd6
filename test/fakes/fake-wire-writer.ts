import type { ServerResponse } from 'node:http';

/**
 * Writing an answer to the socket, whole or broken off. A cut answer is written and flushed
 * before the socket is destroyed, so the client really receives the part and then sees the
 * connection end, as when a provider's connection drops mid-answer.
 */

function destroyAfterFlush(response: ServerResponse, part: string | Buffer): void {
  if (part.length === 0) {
    // Headers alone: flush them, then break the connection on the next turn of the loop.
    response.flushHeaders();
    setImmediate(() => response.destroy());
    return;
  }
  response.write(part, () => response.destroy());
}

export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}, cutAfterEvents?: number): void {
  const text = JSON.stringify(body);
  if (cutAfterEvents === undefined) {
    response.writeHead(status, { 'content-type': 'application/json', ...headers });
    response.end(text);
    return;
  }
  // The full length is announced so that the client knows the body ended early.
  const bytes = Buffer.from(text, 'utf8');
  response.writeHead(status, { 'content-type': 'application/json', 'content-length': String(bytes.length), ...headers });
  destroyAfterFlush(response, bytes.subarray(0, Math.floor(bytes.length / 2)));
}

/** Streams carry text in pieces of this many characters, as the APIs stream it in small chunks. */
const PIECE_CHARACTERS = 48;

export function pieces(text: string): string[] {
  const result: string[] = [];
  for (let offset = 0; offset < text.length; offset += PIECE_CHARACTERS) result.push(text.slice(offset, offset + PIECE_CHARACTERS));
  return result;
}

/** One SSE event as written on the wire: OpenAI's bare `data:` lines or Anthropic's named events. */
export function sseEvent(data: unknown, name?: string): string {
  const payload = typeof data === 'string' ? data : JSON.stringify(data);
  return `${name === undefined ? '' : `event: ${name}\n`}data: ${payload}\n\n`;
}

export function sendEvents(response: ServerResponse, events: string[], cutAfterEvents?: number): void {
  response.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', connection: 'keep-alive' });
  if (cutAfterEvents === undefined) {
    response.end(events.join(''));
    return;
  }
  destroyAfterFlush(response, events.slice(0, Math.max(0, cutAfterEvents)).join(''));
}
