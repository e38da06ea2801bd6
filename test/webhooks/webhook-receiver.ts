import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { TLSSocket } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { vi } from 'vitest';
import { Webhook } from 'standardwebhooks';

export interface ReceivedWebhook {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  headers: Record<string, string>;
  /** The TLS server name (SNI) the sender asked for; undefined over plain http. */
  servername: string | undefined;
}

export interface ReceiverOptions {
  /** Serve https with this key and certificate; `url` then names `urlHost`. */
  tls?: { key: string; cert: string };
  /** The address to listen on (default 127.0.0.1). */
  host?: string;
  /** The port to listen on (default: any free one). */
  port?: number;
  /** The host written into `url` (default: the listening address). */
  urlHost?: string;
  /** Answer each request this long after it arrived, so deliveries stay in flight side by side. */
  answerAfterMs?: number;
  /** Also counts the requests not answered yet here, besides the receiver's own `gauge` (one shared by several receivers). */
  sharedGauge?: InFlightGauge;
}

/** Requests received and not answered yet, and the most there were at once. */
export interface InFlightGauge {
  now: number;
  peak: number;
}

export const inFlightGauge = (): InFlightGauge => ({ now: 0, peak: 0 });

/**
 * A webhook receiver on loopback: records every delivery and answers with the next status
 * of `statuses` (the last one repeats). `hold()` keeps the next answers back until
 * `release()`, to catch a delivery in flight.
 */
export interface WebhookReceiver {
  url: string;
  port: number;
  received: ReceivedWebhook[];
  statuses: number[];
  /** This receiver's requests not answered yet. */
  gauge: InFlightGauge;
  hold(): void;
  release(): void;
  /** Resolves with the next delivery that arrives (or the first one not yet awaited). */
  nextDelivery(): Promise<ReceivedWebhook>;
  /** Resolves once `count` deliveries have arrived in all. */
  untilReceived(count: number): Promise<void>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(statuses: number[] = [200], options: ReceiverOptions = {}): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const held: Array<() => void> = [];
  let holding = false;
  let answered = 0;
  let awaited = 0;
  const waiting: Array<() => void> = [];
  const receiver: WebhookReceiver = {
    url: '',
    port: 0,
    received,
    statuses,
    gauge: inFlightGauge(),
    hold: () => {
      holding = true;
    },
    release: () => {
      holding = false;
      for (const answer of held.splice(0)) answer();
    },
    nextDelivery: async () => {
      const index = awaited++;
      await receiver.untilReceived(index + 1);
      return received[index]!;
    },
    untilReceived: async (count) => {
      while (received.length < count) await new Promise<void>((resolve) => waiting.push(resolve));
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const gauges = [receiver.gauge, ...(options.sharedGauge === undefined ? [] : [options.sharedGauge])];
  const answer = (response: ServerResponse) => {
    const status = receiver.statuses[Math.min(answered, receiver.statuses.length - 1)] ?? 200;
    answered += 1;
    for (const gauge of gauges) gauge.now -= 1;
    response.writeHead(status, { 'content-type': 'text/plain' });
    response.end(status < 300 ? 'ok' : `receiver failure ${status}`);
  };
  const handle = (request: IncomingMessage, response: ServerResponse) => {
    for (const gauge of gauges) {
      gauge.now += 1;
      gauge.peak = Math.max(gauge.peak, gauge.now);
    }
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));
      received.push({
        id: headers['webhook-id'] ?? '',
        timestamp: headers['webhook-timestamp'] ?? '',
        signature: headers['webhook-signature'] ?? '',
        body: Buffer.concat(chunks).toString('utf8'),
        headers,
        servername: request.socket instanceof TLSSocket && typeof request.socket.servername === 'string' ? request.socket.servername : undefined,
      });
      for (const wake of waiting.splice(0)) wake();
      if (holding) held.push(() => answer(response));
      else if (options.answerAfterMs === undefined) answer(response);
      else setTimeout(() => answer(response), options.answerAfterMs);
    });
  };
  const server = options.tls === undefined ? createServer(handle) : createHttpsServer(options.tls, handle);
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, host, resolve));
  receiver.port = (server.address() as AddressInfo).port;
  receiver.url = `${options.tls === undefined ? 'http' : 'https'}://${options.urlHost ?? host}:${receiver.port}/hooks`;
  return receiver;
}

/**
 * Verifies a delivery with the Standard Webhooks reference implementation, as a receiver
 * would at `atMs` (the reference checks the timestamp against its own clock: ±5 minutes).
 */
export function verifyWithReference(secret: string, delivery: ReceivedWebhook, atMs: number): unknown {
  vi.useFakeTimers({ toFake: ['Date'], now: atMs });
  try {
    return new Webhook(secret).verify(delivery.body, {
      'webhook-id': delivery.id,
      'webhook-timestamp': delivery.timestamp,
      'webhook-signature': delivery.signature,
    });
  } finally {
    vi.useRealTimers();
  }
}
