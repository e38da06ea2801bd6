/**
 * The report endpoints beside /visitors (issue 14), timed on the analytics suite's loaded
 * server: GET /views, /agents, /pages, /agent-errors and /summary over the suite's date
 * range, p50 and p95, each as a ratio against DuckDB's visitors answer over the same rows
 * measured in the same run. The caveat goes next to every figure: DuckDB answers only the
 * visitors question, so the ratio says how far a report is from an in-process columnar
 * scan of the same data, not a like-for-like comparison.
 */
import type { VisitorsQuestion } from './analytics-visitors-answer.js';
import { getJsonOverHttp } from './analytics-http-query.js';
import type { BenchServer } from './lib/docwright-server.js';
import type { SampleSummary } from './lib/percentiles.js';
import { metric, type BenchMetric } from './lib/suite-report.js';
import { timeRepeated } from './lib/timing.js';

export const REPORT_ENDPOINTS = ['views', 'agents', 'pages', 'agent-errors', 'summary'] as const;

/** Fewer runs than /visitors: five reports per backend, and the raw-hit ones scan the raw table. */
export const REPORT_RUNS = { warmup: 1, iterations: 7 };
/** /summary asks every report twice (this week, the week before): 3 runs, no warm-up, so p95 is the slowest of 3. */
const SUMMARY_RUNS = { warmup: 0, iterations: 3 };

/** The summary spans at most 92 days; the suite's range is 30. */
const SUMMARY_MAX_DAYS = 92;

export async function timeReportEndpoints(server: BenchServer, question: VisitorsQuestion, duckdb: SampleSummary): Promise<BenchMetric[]> {
  const metrics: BenchMetric[] = [];
  const from = new Date(question.from).toISOString();
  const to = new Date(Math.min(question.to, question.from + SUMMARY_MAX_DAYS * 86_400_000)).toISOString();
  for (const endpoint of REPORT_ENDPOINTS) {
    const parameters: Record<string, string> = { dateFrom: from, dateTo: to, ...(endpoint === 'summary' ? {} : { limit: String(question.limit) }) };
    const runs = endpoint === 'summary' ? SUMMARY_RUNS : REPORT_RUNS;
    const timed = await timeRepeated(() => getJsonOverHttp(server, endpoint, parameters), runs);
    const note = `baseline: DuckDB's visitors answer (a different, simpler question) over the same rows; ${runs.iterations} runs`;
    metrics.push(
      metric({ name: `report /${endpoint} p50`, value: timed.summary.p50, unit: 'ms', baseline: { name: 'DuckDB visitors', value: duckdb.p50 }, note }),
      metric({ name: `report /${endpoint} p95`, value: timed.summary.p95, unit: 'ms', baseline: { name: 'DuckDB visitors', value: duckdb.p95 }, note }),
    );
  }
  return metrics;
}
