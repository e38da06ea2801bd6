import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback server that stands for "some other host": it records every request it gets
 * (method, URL, headers, body) and answers each with `answer`. Tests point redirects at
 * it to see what a client would hand a third party.
 */
export interface RecordedCall {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface RecordingServer {
  url: string;
  calls: RecordedCall[];
  /** Every header value and body received, for "the token never got here" checks. */
  everythingReceived(): string;
  close(): Promise<void>;
}

export async function startRecordingServer(answer: { status: number; body: unknown } = { status: 200, body: {} }): Promise<RecordingServer> {
  const calls: RecordedCall[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      calls.push({ method: request.method ?? 'GET', url: request.url ?? '/', headers: { ...request.headers }, body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(answer.status, { 'Content-Type': 'application/json' });
      response.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    calls,
    everythingReceived: () => JSON.stringify(calls),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
