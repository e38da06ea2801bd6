import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { clientKey } from '../rate-limit/client-rate-limiter.js';

/**
 * At most `max` open connections per client address (an IPv6 /64 counts as one, as the
 * rate limits count it): a connection beyond that is closed as it is accepted, before a
 * byte of it is read. Without a cap one client held 18,119 sockets, each with its buffers
 * and a slot in the server's timeout checks; with it, other clients (and /healthz) are
 * served as before. Only for direct clients: behind a proxy every client shares the
 * proxy's address, so the caller skips this when DOCWRIGHT_TRUST_PROXY is set.
 */
export function capConnectionsPerClient(server: Server, max: number): void {
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    // Undefined once the peer has already gone: nothing to count.
    const address = socket.remoteAddress;
    if (address === undefined) return;
    const client = clientKey(address);
    const count = open.get(client) ?? 0;
    if (count >= max) {
      socket.destroy();
      return;
    }
    open.set(client, count + 1);
    socket.once('close', () => {
      const left = (open.get(client) ?? 1) - 1;
      if (left === 0) open.delete(client);
      else open.set(client, left);
    });
  });
}
