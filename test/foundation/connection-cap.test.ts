import { connect, type Socket } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/load-config.js';
import { startListeningTestApp, type ListeningTestApp } from '../helpers/listening-test-app.js';

interface Held {
  socket: Socket;
  /** Resolves true when the server closes the connection within `ms`, else false. */
  closedWithin(ms: number): Promise<boolean>;
}

/** A raw connection from `localAddress` (127.0.0.2 is another client than 127.0.0.1 to the server; Linux routes all of 127/8 to loopback). */
async function hold(url: string, localAddress: string): Promise<Held> {
  const { hostname, port } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port), localAddress });
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  socket.on('error', () => {});
  let closed = false;
  const whenClosed = new Promise<void>((resolve) => socket.once('close', () => resolve(void (closed = true))));
  return {
    socket,
    async closedWithin(ms) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([whenClosed, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
      clearTimeout(timer);
      return closed;
    },
  };
}

/** GET /healthz over a held connection; resolves with the status line. */
async function healthOver(held: Held): Promise<string> {
  let text = '';
  held.socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
  held.socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
  for (let waited = 0; !text.includes('\r\n') && waited < 5_000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
  return text.split('\r\n')[0] ?? '';
}

describe('connections per client address', () => {
  let server: ListeningTestApp | undefined;
  const sockets: Socket[] = [];
  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.destroy();
    await server?.close();
    server = undefined;
  });
  const open = async (localAddress: string): Promise<Held> => {
    const held = await hold(server!.url, localAddress);
    sockets.push(held.socket);
    return held;
  };

  test('default 256, 0 turns the cap off, a negative value is refused', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'docwright-connection-cap-'));
    expect(loadConfig({ DOCWRIGHT_DATA_DIR: dataDir }).maxConnectionsPerClient).toBe(256);
    expect(loadConfig({ DOCWRIGHT_DATA_DIR: dataDir, DOCWRIGHT_MAX_CONNECTIONS_PER_CLIENT: '0' }).maxConnectionsPerClient).toBe(0);
    expect(() => loadConfig({ DOCWRIGHT_DATA_DIR: dataDir, DOCWRIGHT_MAX_CONNECTIONS_PER_CLIENT: '-1' })).toThrow(ConfigError);
  });

  test('a client at its cap has further connections closed; /healthz still answers other clients, and the client once it lets one go', async () => {
    server = await startListeningTestApp('sqlite', { DOCWRIGHT_MAX_CONNECTIONS_PER_CLIENT: '5' });
    const held: Held[] = [];
    for (let index = 0; index < 5; index++) held.push(await open('127.0.0.2'));
    const over = await open('127.0.0.2');
    expect(await over.closedWithin(2_000)).toBe(true);
    for (const connection of held) expect(await connection.closedWithin(0)).toBe(false);

    // Another client is served as usual, over a fresh connection.
    const response = await fetch(`${server.url}/healthz`);
    expect(response.status).toBe(200);
    await response.text();

    // The capped client gets a slot back when one of its connections closes.
    held[0]!.socket.destroy();
    await held[0]!.closedWithin(1_000);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const again = await open('127.0.0.2');
    expect(await healthOver(again)).toBe('HTTP/1.1 200 OK');
  });

  test('behind a proxy (DOCWRIGHT_TRUST_PROXY set) nothing is capped: every client shares the proxy address', async () => {
    server = await startListeningTestApp('sqlite', { DOCWRIGHT_MAX_CONNECTIONS_PER_CLIENT: '2', DOCWRIGHT_TRUST_PROXY: '127.0.0.2' });
    const held: Held[] = [];
    for (let index = 0; index < 6; index++) held.push(await open('127.0.0.2'));
    for (const connection of held) expect(await connection.closedWithin(200)).toBe(false);
    expect(await healthOver(held[5]!)).toBe('HTTP/1.1 200 OK');
  });
});
