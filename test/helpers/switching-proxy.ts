import { createServer, request as forward, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface SwitchingProxy {
  url: string;
  /** Every request, with the upstream it went to. */
  requests: Array<{ method: string; url: string; target: string }>;
  /** New requests go to `target` from now on (requests in flight stay where they are). */
  switchTo(target: string): void;
  close(): Promise<void>;
}

/**
 * A load balancer in miniature: forwards each request, streaming both ways (event streams
 * included), to the current upstream, which the test switches, as a balancer does once an
 * upstream's /readyz fails. An upstream that cannot be reached answers 502.
 */
export async function startSwitchingProxy(initialTarget: string): Promise<SwitchingProxy> {
  let target = initialTarget;
  const requests: SwitchingProxy['requests'] = [];
  const server = createServer((incoming: IncomingMessage, outgoing: ServerResponse) => {
    const upstream = new URL(incoming.url ?? '/', target);
    requests.push({ method: incoming.method ?? 'GET', url: incoming.url ?? '/', target });
    const headers = { ...incoming.headers, host: upstream.host };
    const proxied = forward(upstream, { method: incoming.method, headers }, (response) => {
      outgoing.writeHead(response.statusCode ?? 502, response.headers);
      response.pipe(outgoing);
      response.on('error', () => outgoing.destroy());
    });
    proxied.on('error', (error) => {
      if (outgoing.headersSent) {
        outgoing.destroy();
        return;
      }
      outgoing.writeHead(502, { 'content-type': 'application/problem+json' });
      outgoing.end(JSON.stringify({ status: 502, code: 'bad_gateway', detail: `upstream failed: ${error.message}` }));
    });
    outgoing.on('close', () => proxied.destroy());
    incoming.pipe(proxied);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    switchTo: (next) => void (target = next),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
