import { metric, type SuiteReport } from '../lib/suite-report.js';
import type { ScalingResult, ScalingWorkload } from './cluster-scaling.js';

const label = (result: ScalingResult): string =>
  `${result.configuration.api} API × ${result.configuration.workers} worker${result.configuration.workers === 1 ? '' : 's'}`;

/** The scaling figures as one report: no targets (the issue sets none); one bare Fastify process, measured beside each configuration, for scale. */
export function scalingReport(input: { results: readonly ScalingResult[]; workload: ScalingWorkload }): SuiteReport {
  const { results, workload } = input;
  return {
    suite: 'jobs',
    title: 'jobs on PostgreSQL: 1 and 2 API processes × 1 and 2 workers (npm run cluster)',
    context: [
      'Each configuration is a cluster as `npm run cluster` starts it: `docwright serve --no-worker` × N and `docwright worker` × M (concurrency 2 each, the default) from bin/docwright.js, on a fresh database of one embedded PostgreSQL, all on this machine with the load generator and the fake model.',
      `Poll: GET of one completed job through every API process at once (autocannon per process, ${workload.poll.connections} connections in all, ${workload.poll.rounds} rounds of ${workload.poll.seconds} s, medians), alternating with the same load on one bare Fastify process; CPU is every API process's, not PostgreSQL's.`,
      `Pickup: ${workload.pickupJobs} sequential jobs, each created through the next API process and followed through another; create sent → first model request.`,
      `Drain: ${workload.drainJobs} jobs created together (spread over the API processes) on a model that answers after ${workload.drainModelMs} ms; first create → last job completed.`,
    ],
    metrics: results.flatMap((result) => [
      metric({
        name: `${label(result)}: poll throughput`,
        value: result.poll.requestsPerSecond,
        unit: 'req/s',
        baseline: { name: 'one bare Fastify process', value: result.bare.requestsPerSecond },
      }),
      metric({
        name: `${label(result)}: poll API CPU per request`,
        value: result.poll.cpuMicrosecondsPerRequest,
        unit: 'µs',
        baseline: { name: 'bare Fastify', value: result.bare.cpuMicrosecondsPerRequest },
      }),
      metric({ name: `${label(result)}: pickup p99 (p50 ${result.pickup.p50.toFixed(1)} ms)`, value: result.pickup.p99, unit: 'ms' }),
      metric({
        name: `${label(result)}: drain`,
        value: result.drain.jobsPerSecond,
        unit: 'jobs/s',
        note: `${result.drain.jobs} jobs in ${result.drain.seconds.toFixed(1)} s`,
      }),
    ]),
    notes: results.map(
      (result) =>
        `${label(result)}: load average ${result.load[0].toFixed(1)} → ${result.load[1].toFixed(1)}; poll p99 ${result.poll.p99Milliseconds.toFixed(1)} ms.`,
    ),
  };
}
