import { percentile } from '../lib/percentiles.js';
import type { JobClient } from './job-client.js';
import { load, type LoadSettings } from './poll-throughput.js';
import { processCpuMilliseconds } from './process-cpu.js';

export interface SpreadPollFigure {
  /** All API processes together, median over the rounds. */
  requestsPerSecond: number;
  /** CPU of every API process together per request (PostgreSQL's own processes not counted), median. */
  cpuMicrosecondsPerRequest: number;
  /** The slowest process's p99 in each round, median over the rounds. */
  p99Milliseconds: number;
}

/**
 * Polls the same job through every API process at once, the way a load balancer spreads
 * clients: `settings.connections` connections split evenly, one autocannon per process,
 * all running together in this process. Rounds alternate with the same load (all
 * connections) on one bare Fastify process, so both see the same moments of the shared
 * machine. A 2 s warm-up each, then `settings.rounds` rounds each; medians.
 */
export async function pollAcrossProcesses(options: {
  apis: ReadonlyArray<{ url: string; pid: number }>;
  bare: { url: string; pid: number };
  path: string;
  apiKey: string;
  settings: LoadSettings;
  log: (message: string) => void;
}): Promise<{ docwright: SpreadPollFigure; bare: SpreadPollFigure }> {
  const { settings } = options;
  const headers = { authorization: `Bearer ${options.apiKey}` };
  const sides = [
    { name: `${options.apis.length} API process(es)`, apis: options.apis, rounds: [] as SpreadPollFigure[] },
    { name: 'bare Fastify', apis: [options.bare], rounds: [] as SpreadPollFigure[] },
  ];
  const share = (count: number, index: number): LoadSettings => ({
    ...settings,
    connections: Math.floor(settings.connections / count) + (index < settings.connections % count ? 1 : 0),
  });
  const all = (apis: ReadonlyArray<{ url: string }>, seconds: number) =>
    Promise.all(apis.map((api, index) => load(api.url, [options.path], headers, share(apis.length, index), seconds)));
  for (const side of sides) await all(side.apis, Math.min(2, settings.seconds));
  for (let round = 0; round < settings.rounds; round++) {
    for (const side of sides) {
      const cpuBefore = side.apis.map((api) => processCpuMilliseconds(api.pid));
      const results = await all(side.apis, settings.seconds);
      const cpu = side.apis.reduce((sum, api, index) => sum + processCpuMilliseconds(api.pid) - (cpuBefore[index] ?? 0), 0);
      const requests = results.reduce((sum, result) => sum + result.requests.total, 0);
      const figure = {
        requestsPerSecond: results.reduce((sum, result) => sum + result.requests.total / result.duration, 0),
        cpuMicrosecondsPerRequest: (cpu * 1000) / requests,
        p99Milliseconds: Math.max(...results.map((result) => result.latency.p99)),
      };
      side.rounds.push(figure);
      options.log(
        `jobs scaling: poll round ${round + 1}/${settings.rounds}, ${side.name}: ${figure.requestsPerSecond.toFixed(0)} requests/s, ${figure.cpuMicrosecondsPerRequest.toFixed(0)} µs CPU per request`,
      );
    }
  }
  const summary = (rounds: readonly SpreadPollFigure[]): SpreadPollFigure => {
    const median = (pick: (figure: SpreadPollFigure) => number): number => percentile(rounds.map(pick), 50);
    return {
      requestsPerSecond: median((figure) => figure.requestsPerSecond),
      cpuMicrosecondsPerRequest: median((figure) => figure.cpuMicrosecondsPerRequest),
      p99Milliseconds: median((figure) => figure.p99Milliseconds),
    };
  };
  const [docwright, bare] = sides.map((side) => summary(side.rounds)) as [SpreadPollFigure, SpreadPollFigure];
  return { docwright, bare };
}

/**
 * A JobClient for the pickup benchmark that spreads over API processes: each job is
 * created through the next process in turn and its events are followed through the one
 * after it, so a worker is woken by a job another process queued, and the event stream
 * hears of the job's progress from yet another process.
 */
export function spreadingClient(clients: readonly JobClient[]): Pick<JobClient, 'create' | 'waitForSettled'> {
  let next = 0;
  const at = (index: number): JobClient => {
    const client = clients[index % clients.length];
    if (client === undefined) throw new Error('no API process to send to');
    return client;
  };
  return {
    create: (prompt) => at(next++).create(prompt),
    waitForSettled: (jobId, timeoutMs) => at(next).waitForSettled(jobId, timeoutMs),
  };
}
