/**
 * Sends dataset hits to a running server's `POST /v1/analytics/{projectId}/events`, a
 * few clients at a time, 1,000 hits per request, and counts what the server accepted.
 */
import type { AnalyticsDataset } from './analytics-dataset.js';
import { eventsBody, RequestBodyReader } from './analytics-request-bodies.js';
import type { BenchServer } from './lib/docwright-server.js';
import { postConcurrently } from './lib/http-load.js';
import { summarize, type SampleSummary } from './lib/percentiles.js';

export const EVENTS_PER_REQUEST = 1000;

export interface IngestRun {
  hits: number;
  accepted: number;
  rejected: number;
  requests: number;
  seconds: number;
  hitsPerSecond: number;
  /** CPU seconds the server process spent meanwhile (not the database's own processes on PostgreSQL). */
  serverCpuSeconds: number;
  /** Per-request latency, ms. */
  latency: SampleSummary;
}

export interface IngestOptions {
  server: BenchServer;
  dataset: AnalyticsDataset;
  from: number;
  to: number;
  concurrency: number;
  /**
   * Serialize every request body before the clock starts, so the client's JSON work is
   * not in the figure. Costs about 270 MB per million hits; otherwise bodies are built
   * as the clients ask for them.
   */
  prebuild: boolean;
  /**
   * A body cache of the whole dataset (analytics-request-bodies.ts): bodies are read from
   * it in order, so the client's JSON work is not in the figure for any part of the load.
   * Takes precedence over `prebuild`.
   */
  bodyCache?: string;
  log?: (message: string) => void;
}

export async function ingestOverHttp(options: IngestOptions): Promise<IngestRun> {
  const { dataset, from, to } = options;
  const starts: number[] = [];
  for (let start = from; start < to; start += EVENTS_PER_REQUEST) starts.push(start);
  const bodyAt = (start: number): Buffer => eventsBody(dataset, start, Math.min(to, start + EVENTS_PER_REQUEST));
  const cached = options.bodyCache === undefined ? undefined : new RequestBodyReader(options.bodyCache, from, to, EVENTS_PER_REQUEST);
  const prebuilt = options.prebuild && cached === undefined ? starts.map(bodyAt) : undefined;
  let next = 0;
  let accepted = 0;
  let rejected = 0;
  let lastLogAt = performance.now();
  const cpuBefore = await options.server.cpuSeconds();
  const result = await postConcurrently({
    url: `${options.server.url}/v1/analytics/${encodeURIComponent(options.server.projectId)}/events`,
    headers: { authorization: `Bearer ${options.server.apiKey}` },
    concurrency: options.concurrency,
    expectedStatus: 202,
    nextBody: () => {
      if (next >= starts.length) return undefined;
      const index = next++;
      if (cached) return cached.next();
      if (prebuilt) {
        const body = prebuilt[index];
        // Dropped once handed over, so memory shrinks as the run goes.
        prebuilt[index] = Buffer.alloc(0);
        return body;
      }
      return bodyAt(starts[index]!);
    },
    onResponse: (text) => {
      const answer = JSON.parse(text) as { accepted: number; rejected: unknown[] };
      accepted += answer.accepted;
      rejected += answer.rejected.length;
      if (options.log && performance.now() - lastLogAt > 15_000) {
        lastLogAt = performance.now();
        options.log(`  … ${(accepted + rejected).toLocaleString('en-US')} of ${(to - from).toLocaleString('en-US')} hits sent`);
      }
    },
  }).finally(() => cached?.close());
  const serverCpuSeconds = (await options.server.cpuSeconds()) - cpuBefore;
  return {
    serverCpuSeconds,
    hits: to - from,
    accepted,
    rejected,
    requests: result.requests,
    seconds: result.seconds,
    hitsPerSecond: (to - from) / result.seconds,
    latency: summarize(result.latencies),
  };
}
