import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ProxiedRequest {
  method: string;
  url: string;
  body: Buffer;
}

/**
 * What to do with one request: pass it on (optionally late), answer it with a status of its
 * own (once `after` settles), or drop its connection unanswered, as a server that went away.
 */
export type ProxyDecision = { forward: true; delayMs?: number } | { status: number; body?: string; after?: Promise<unknown> } | { drop: true };

export interface FaultProxy {
  url: string;
  /** Every request seen, in arrival order. */
  requests: ProxiedRequest[];
  close(): Promise<void>;
}

/**
 * An HTTP proxy in front of a real server that can fail or delay chosen requests, to
 * test how a client copes with 5xx answers and slow responses.
 */
export async function startFaultProxy(target: string, decide: (request: ProxiedRequest, index: number) => ProxyDecision): Promise<FaultProxy> {
  const requests: ProxiedRequest[] = [];
  const server = createServer((incoming: IncomingMessage, outgoing: ServerResponse) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const seen: ProxiedRequest = { method: incoming.method ?? 'GET', url: incoming.url ?? '/', body: Buffer.concat(chunks) };
      requests.push(seen);
      const decision = decide(seen, requests.length - 1);
      if ('drop' in decision) {
        incoming.socket.destroy();
        return;
      }
      if (!('forward' in decision)) {
        void (decision.after ?? Promise.resolve()).then(() => {
          outgoing.writeHead(decision.status, { 'content-type': 'application/problem+json' });
          outgoing.end(decision.body ?? JSON.stringify({ status: decision.status, code: 'injected_failure', detail: `injected ${decision.status}` }));
        });
        return;
      }
      setTimeout(() => {
        const headers = { ...incoming.headers };
        delete headers.host;
        const forwarded = request(new URL(seen.url, target), { method: seen.method, headers }, (answer) => {
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(outgoing);
        });
        forwarded.on('error', () => {
          outgoing.writeHead(502);
          outgoing.end();
        });
        forwarded.end(seen.body);
      }, decision.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
