import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { vi } from 'vitest';
import { Webhook } from 'standardwebhooks';

export interface ReceivedWebhook {
  id: string;
  timestamp: string;
  signature: string;
  body: string;
  headers: Record<string, string>;
}

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
  hold(): void;
  release(): void;
  close(): Promise<void>;
}

export async function startWebhookReceiver(statuses: number[] = [200]): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const held: Array<() => void> = [];
  let holding = false;
  let answered = 0;
  const receiver: WebhookReceiver = {
    url: '',
    port: 0,
    received,
    statuses,
    hold: () => {
      holding = true;
    },
    release: () => {
      holding = false;
      for (const answer of held.splice(0)) answer();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const answer = (response: ServerResponse) => {
    const status = receiver.statuses[Math.min(answered, receiver.statuses.length - 1)] ?? 200;
    answered += 1;
    response.writeHead(status, { 'content-type': 'text/plain' });
    response.end(status < 300 ? 'ok' : `receiver failure ${status}`);
  };
  const server = createServer((request, response) => {
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
      });
      if (holding) held.push(() => answer(response));
      else answer(response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.port = (server.address() as AddressInfo).port;
  receiver.url = `http://127.0.0.1:${receiver.port}/hooks`;
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
