import { createRequire } from 'node:module';
import { percentile } from '../lib/percentiles.js';
import { processCpuMilliseconds } from './process-cpu.js';

/** The part of autocannon's result this benchmark reads (the package ships no types). */
interface AutocannonResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
}

interface AutocannonOptions {
  url: string;
  /** Sent in turn on each connection instead of the URL's path. */
  requests?: Array<{ method: 'GET'; path: string }>;
  connections: number;
  pipelining: number;
  duration: number;
  headers?: Record<string, string>;
}

type Autocannon = (options: AutocannonOptions) => Promise<AutocannonResult>;

// autocannon is CommonJS without type declarations; this keeps its type to what is used here.
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

export interface LoadSettings {
  connections: number;
  pipelining: number;
  /** Seconds per measured round. */
  seconds: number;
  rounds: number;
}

export interface LoadFigure {
  /** Completed requests per second, median over the rounds. */
  requestsPerSecond: number;
  /** Server CPU per request in microseconds, median over the rounds. */
  cpuMicrosecondsPerRequest: number;
  p50Milliseconds: number;
  p99Milliseconds: number;
  total: number;
}

export interface PollComparison {
  docwright: LoadFigure;
  bare: LoadFigure;
  settings: LoadSettings;
}

/** One autocannon run; any error, timeout or non-2xx answer fails it. */
export async function load(
  url: string,
  paths: readonly string[] | undefined,
  headers: Record<string, string>,
  settings: LoadSettings,
  seconds: number,
): Promise<AutocannonResult> {
  const requests = paths?.map((path) => ({ method: 'GET' as const, path }));
  const result = await autocannon({
    url,
    headers,
    connections: settings.connections,
    pipelining: settings.pipelining,
    duration: seconds,
    ...(requests === undefined ? {} : { requests }),
  });
  if (result.errors > 0 || result.timeouts > 0 || result.non2xx > 0) {
    throw new Error(`load on ${url}: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx answers`);
  }
  return result;
}

/**
 * GET of the poll operation on the real server against the same GET on a bare Fastify
 * route, with the same autocannon settings. Both get a discarded warm-up; then the rounds
 * alternate between them, so a slow patch of the (shared) machine hits both alike.
 */
export async function comparePollThroughput(options: {
  pollUrl: string;
  apiKey: string;
  /** Process ids of the two servers, for their CPU time. */
  pollPid: number;
  bareUrl: string;
  barePid: number;
  /** Paths asked in turn on each connection (of both servers), instead of the URLs' own. */
  paths?: readonly string[];
  settings: LoadSettings;
  log: (message: string) => void;
}): Promise<PollComparison> {
  const { settings } = options;
  const sides: Array<{ name: string; url: string; pid: number; headers: Record<string, string>; results: Measured[] }> = [
    { name: 'docwright', url: options.pollUrl, pid: options.pollPid, headers: { authorization: `Bearer ${options.apiKey}` }, results: [] },
    { name: 'bare Fastify', url: options.bareUrl, pid: options.barePid, headers: {}, results: [] },
  ];
  for (const side of sides) await load(side.url, options.paths, side.headers, settings, Math.min(2, settings.seconds));
  for (let round = 0; round < settings.rounds; round++) {
    for (const side of sides) {
      const cpuBefore = processCpuMilliseconds(side.pid);
      const result = await load(side.url, options.paths, side.headers, settings, settings.seconds);
      const cpuMicroseconds = (processCpuMilliseconds(side.pid) - cpuBefore) * 1000;
      side.results.push({ ...result, cpuMicrosecondsPerRequest: cpuMicroseconds / result.requests.total });
      options.log(
        `jobs: poll round ${round + 1}/${settings.rounds}, ${side.name}: ${(result.requests.total / result.duration).toFixed(0)} requests/s, ${(cpuMicroseconds / result.requests.total).toFixed(0)} µs server CPU per request`,
      );
    }
  }
  const [docwright, bare] = sides.map((side) => summarize(side.results)) as [LoadFigure, LoadFigure];
  return { docwright, bare, settings };
}

export type { AutocannonResult };

type Measured = AutocannonResult & { cpuMicrosecondsPerRequest: number };

/** Medians over the rounds: one round slowed by a neighbour on the machine does not move them. */
function summarize(results: readonly Measured[]): LoadFigure {
  const median = (pick: (result: Measured) => number): number => percentile(results.map(pick), 50);
  return {
    requestsPerSecond: median((result) => result.requests.total / result.duration),
    cpuMicrosecondsPerRequest: median((result) => result.cpuMicrosecondsPerRequest),
    p50Milliseconds: median((result) => result.latency.p50),
    p99Milliseconds: median((result) => result.latency.p99),
    total: results.reduce((sum, result) => sum + result.requests.total, 0),
  };
}
