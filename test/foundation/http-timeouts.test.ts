import { connect, type Socket } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/load-config.js';
import { startListeningTestApp, type ListeningTestApp } from '../helpers/listening-test-app.js';

interface RawConnection {
  socket: Socket;
  /** Everything the server sent so far. */
  received(): string;
  /** Resolves with the milliseconds from `since` until the server closed the connection, or null after `limitMs`. */
  closedWithin(limitMs: number, since?: number): Promise<number | null>;
}

async function openRaw(url: string): Promise<RawConnection> {
  const { hostname, port } = new URL(url);
  const socket = connect({ host: hostname, port: Number(port) });
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  let text = '';
  let closedAt: number | null = null;
  socket.on('data', (chunk) => (text += chunk.toString('latin1')));
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve(void (closedAt = Date.now()))));
  const opened = Date.now();
  return {
    socket,
    received: () => text,
    async closedWithin(limitMs, since = opened) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([closed, new Promise<void>((resolve) => (timer = setTimeout(resolve, limitMs)))]);
      clearTimeout(timer);
      return closedAt === null ? null : closedAt - since;
    },
  };
}

/** Writes `text` one byte at a time, `intervalMs` apart, until it is all sent or the socket closes. */
function trickle(socket: Socket, text: string, intervalMs: number): { stop(): void } {
  let index = 0;
  const timer = setInterval(() => {
    if (index >= text.length || socket.destroyed) return clearInterval(timer);
    socket.write(text[index++]!);
  }, intervalMs);
  return { stop: () => clearInterval(timer) };
}

describe('HTTP server deadlines', () => {
  let server: ListeningTestApp | undefined;
  const raw: RawConnection[] = [];
  afterEach(async () => {
    for (const connection of raw.splice(0)) connection.socket.destroy();
    await server?.close();
    server = undefined;
  });

  test('defaults, and a header deadline beyond the request deadline is refused', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'docwright-timeouts-'));
    expect(loadConfig({ DOCWRIGHT_DATA_DIR: dataDir }).http).toEqual({
      headersTimeoutMs: 20_000,
      requestTimeoutMs: 120_000,
      keepAliveTimeoutMs: 72_000,
      idleTimeoutMs: 600_000,
    });
    expect(() => loadConfig({ DOCWRIGHT_DATA_DIR: dataDir, DOCWRIGHT_HEADERS_TIMEOUT_SECONDS: '30', DOCWRIGHT_REQUEST_TIMEOUT_SECONDS: '10' })).toThrow(
      /DOCWRIGHT_HEADERS_TIMEOUT_SECONDS: must not exceed DOCWRIGHT_REQUEST_TIMEOUT_SECONDS/,
    );
    expect(() => loadConfig({ DOCWRIGHT_DATA_DIR: dataDir, DOCWRIGHT_IDLE_TIMEOUT_SECONDS: '5' })).toThrow(ConfigError);
    expect(loadConfig({ DOCWRIGHT_DATA_DIR: dataDir, DOCWRIGHT_IDLE_TIMEOUT_SECONDS: '0' }).http.idleTimeoutMs).toBe(0);
  });

  test('a client sending its headers byte by byte is answered 408 and cut off at the header deadline', async () => {
    server = await startListeningTestApp('sqlite', { DOCWRIGHT_HEADERS_TIMEOUT_SECONDS: '1', DOCWRIGHT_REQUEST_TIMEOUT_SECONDS: '30' });
    const connection = await openRaw(server.url);
    raw.push(connection);
    // A byte every 100 ms keeps the socket busy, so only a deadline on the whole head ends it.
    const sender = trickle(connection.socket, `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n${'X-Slow: ' + 'a'.repeat(500)}\r\n\r\n`, 100);
    const elapsed = await connection.closedWithin(10_000);
    sender.stop();
    expect(elapsed, 'still open after 10 s').not.toBeNull();
    expect(elapsed!).toBeGreaterThanOrEqual(900);
    expect(elapsed!).toBeLessThan(6_000);
    expect(connection.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect(connection.received()).toContain('application/problem+json');
    expect(connection.received()).toContain('"code":"request_timeout"');
  });

  test('a body sent byte by byte is cut off at the request deadline', async () => {
    server = await startListeningTestApp('sqlite', { DOCWRIGHT_HEADERS_TIMEOUT_SECONDS: '1', DOCWRIGHT_REQUEST_TIMEOUT_SECONDS: '2' });
    const connection = await openRaw(server.url);
    raw.push(connection);
    connection.socket.write(
      `POST /v1/analytics/${server.projectId}/collect HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\nContent-Length: 400\r\n\r\n`,
    );
    const sender = trickle(connection.socket, 'x'.repeat(400), 100);
    const elapsed = await connection.closedWithin(10_000);
    sender.stop();
    expect(elapsed, 'still open after 10 s').not.toBeNull();
    // The head was complete at once, so the 1 s header deadline does not apply; the 2 s one does.
    expect(elapsed!).toBeGreaterThanOrEqual(1_800);
    expect(elapsed!).toBeLessThan(7_000);
    expect(connection.received()).toMatch(/^HTTP\/1\.1 408 /);
  });

  test('an idle keep-alive connection is closed after the keep-alive timeout', async () => {
    server = await startListeningTestApp('sqlite', { DOCWRIGHT_KEEP_ALIVE_TIMEOUT_SECONDS: '1' });
    const connection = await openRaw(server.url);
    raw.push(connection);
    connection.socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    const deadline = Date.now() + 5_000;
    while (!connection.received().includes('\r\n\r\n') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(connection.received()).toMatch(/^HTTP\/1\.1 200 /);
    const answeredAt = Date.now();
    const elapsed = await connection.closedWithin(10_000, answeredAt);
    expect(elapsed, 'still open after 10 s').not.toBeNull();
    expect(elapsed!).toBeLessThan(5_000);
  });

  test('an event stream outlives the request and header deadlines', async () => {
    server = await startListeningTestApp('sqlite', { DOCWRIGHT_HEADERS_TIMEOUT_SECONDS: '0.5', DOCWRIGHT_REQUEST_TIMEOUT_SECONDS: '1' });
    const headers = { authorization: `Bearer ${server.apiKey}`, 'content-type': 'application/json' };
    // No worker runs in the test app, so the job stays active and its stream stays open.
    const created = await fetch(`${server.url}/v2/agent/${server.projectId}/job`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ prompt: 'Fix the typo' }),
    });
    expect(created.status).toBe(201);
    const jobId = ((await created.json()) as { id: string }).id;
    const stream = await fetch(`${server.url}/v2/agent/${server.projectId}/job/${jobId}/events`, { headers: { authorization: headers.authorization } });
    expect(stream.status).toBe(200);
    const reader = stream.body!.getReader();
    let text = '';
    let ended = false;
    const reading = (async () => {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += new TextDecoder().decode(value);
      }
      ended = true;
    })();
    // Three request deadlines (and the checks that enforce them) pass with the stream open.
    await new Promise((resolve) => setTimeout(resolve, 3_500));
    expect(ended).toBe(false);
    expect(text).toContain('event: job.created');
    const archived = await fetch(`${server.url}/v2/agent/${server.projectId}/job/${jobId}/archive`, {
      method: 'POST',
      headers: { authorization: headers.authorization },
    });
    expect(archived.status).toBe(200);
    await reading;
    // Still the same stream: the archive's event arrived on it, and the server ended it normally.
    expect(text).toContain('event: job.archived');
  });
});
