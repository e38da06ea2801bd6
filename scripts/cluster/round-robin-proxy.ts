import { connect, createServer, type Server, type Socket } from 'node:net';
import { once } from 'node:events';

export interface RoundRobinProxy {
  url: string;
  port: number;
  close(): Promise<void>;
}

/**
 * A TCP proxy that hands each new connection to the next API process in turn, like a load
 * balancer in front of the cluster. It balances connections, not requests: a keep-alive
 * client stays on one process (curl, a browser tab), a client that opens connections per
 * request is spread. A process that refuses the connection (stopped, restarting) is
 * skipped for that connection. No TLS, no headers added: for trying things locally only.
 */
export async function startRoundRobinProxy(options: {
  host: string;
  port: number;
  targets: ReadonlyArray<{ host: string; port: number }>;
}): Promise<RoundRobinProxy> {
  let next = 0;
  const sockets = new Set<Socket>();
  const track = (socket: Socket): void => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };
  const forward = (client: Socket, attempt: number): void => {
    const target = options.targets[next++ % options.targets.length];
    if (target === undefined) return void client.destroy();
    const upstream = connect(target.port, target.host);
    track(upstream);
    let connected = false;
    upstream.once('connect', () => {
      connected = true;
      client.pipe(upstream);
      upstream.pipe(client);
      client.resume();
      client.once('close', () => upstream.destroy());
      upstream.once('close', () => client.destroy());
    });
    upstream.on('error', () => {
      upstream.destroy();
      // Refused before connecting: try the next process, each at most once.
      if (!connected && attempt + 1 < options.targets.length && !client.destroyed) return forward(client, attempt + 1);
      client.destroy();
    });
  };
  const server: Server = createServer({ pauseOnConnect: true }, (client) => {
    track(client);
    client.on('error', () => client.destroy());
    forward(client, 0);
  });
  server.listen(options.port, options.host);
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : options.port;
  return {
    url: `http://${options.host}:${port}`,
    port,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
}
