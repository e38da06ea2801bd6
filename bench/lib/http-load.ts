import { Agent, request } from 'node:http';

export interface HttpLoadOptions {
  url: string;
  headers: Record<string, string>;
  /** The next request body, or undefined when there are no more. Shared by all clients. */
  nextBody: () => Buffer | undefined;
  /** Clients sending at the same time, each on its own keep-alive connection. */
  concurrency: number;
  expectedStatus: number;
  /** Sees every response body, e.g. to count accepted events. */
  onResponse?: (body: string) => void;
}

export interface HttpLoadResult {
  requests: number;
  seconds: number;
  /** Milliseconds from sending a request to its last response byte. */
  latencies: number[];
}

/**
 * POSTs bodies over a few concurrent keep-alive connections until `nextBody` runs dry.
 * Plain node:http and ready-made bodies keep the client's own cost low, so the figure is
 * the server's. An unexpected status stops the load with the server's answer.
 */
export async function postConcurrently(options: HttpLoadOptions): Promise<HttpLoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: options.concurrency });
  const target = new URL(options.url);
  const latencies: number[] = [];
  let requests = 0;
  const client = async (): Promise<void> => {
    for (let body = options.nextBody(); body !== undefined; body = options.nextBody()) {
      const sentAt = performance.now();
      const answer = await post(agent, target, options.headers, body);
      latencies.push(performance.now() - sentAt);
      if (answer.status !== options.expectedStatus) {
        throw new Error(`POST ${target.pathname} answered ${answer.status}, expected ${options.expectedStatus}: ${answer.body.slice(0, 500)}`);
      }
      requests++;
      options.onResponse?.(answer.body);
    }
  };
  const startedAt = performance.now();
  try {
    await Promise.all(Array.from({ length: options.concurrency }, client));
  } finally {
    agent.destroy();
  }
  return { requests, seconds: (performance.now() - startedAt) / 1000, latencies };
}

function post(agent: Agent, target: URL, headers: Record<string, string>, body: Buffer): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      target,
      { method: 'POST', agent, headers: { ...headers, 'content-type': 'application/json', 'content-length': String(body.length) } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}
