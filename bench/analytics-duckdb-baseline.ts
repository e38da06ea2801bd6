/**
 * The query-time baseline: DuckDB, an in-process columnar engine built for this kind of
 * aggregate, computing the visitors answer (exact distinct visitors per page by class,
 * site-wide totals, ordered by total desc then path, one page) over the same rows.
 * It gets them pre-classified and with integer visitor ids: the cheapest form for it.
 */
import { DuckDBInstance, DuckDBTimestampValue, type DuckDBConnection } from '@duckdb/node-api';
import type { VisitorsAnswer, VisitorsQuestion } from './analytics-visitors-answer.js';

export interface DuckDbHits {
  rows: number;
  loadSeconds: number;
  visitors(question: VisitorsQuestion): Promise<VisitorsAnswer>;
  close(): void;
}

export async function loadDuckDbHits(csvFile: string): Promise<DuckDbHits> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  const startedAt = performance.now();
  await connection.run(`create table hits (ts timestamp not null, path varchar not null, class varchar not null, visitor bigint not null)`);
  await connection.run(
    `insert into hits select * from read_csv($file, header = true, columns = {'ts': 'TIMESTAMP', 'path': 'VARCHAR', 'class': 'VARCHAR', 'visitor': 'BIGINT'})`,
    {
      file: csvFile,
    },
  );
  const loadSeconds = (performance.now() - startedAt) / 1000;
  const count = await connection.runAndReadAll('select count(*) from hits');
  const rows = Number(count.getRows()[0]?.[0] ?? 0);
  return {
    rows,
    loadSeconds,
    visitors: (question) => queryVisitors(connection, question),
    close() {
      connection.closeSync();
      instance.closeSync();
    },
  };
}

const RANGE = `ts >= $from and ts < $to and class in ('human', 'ai')`;

async function queryVisitors(connection: DuckDBConnection, question: VisitorsQuestion): Promise<VisitorsAnswer> {
  const parameters = {
    from: new DuckDBTimestampValue(BigInt(question.from) * 1000n),
    to: new DuckDBTimestampValue(BigInt(question.to) * 1000n),
  };
  // Grouping by (visitor) and (path, visitor) first, then counting rows, is DuckDB's fast
  // form of these distinct counts: parallel hash aggregates instead of count(distinct …)
  // filter (…), which took several times longer on the full dataset.
  const totals = await connection.runAndReadAll(
    `with per_visitor as (
       select visitor, bool_or(class = 'human') as human, bool_or(class = 'ai') as ai from hits where ${RANGE} group by visitor)
     select count(*) filter (where human), count(*) filter (where ai), count(*) from per_visitor`,
    parameters,
  );
  // One row past the page tells whether there is more, as the endpoint's hasMore does.
  const pages = await connection.runAndReadAll(
    `with per_page_visitor as (
       select path, visitor, bool_or(class = 'human') as human, bool_or(class = 'ai') as ai from hits where ${RANGE} group by path, visitor)
     select path, count(*) filter (where human), count(*) filter (where ai), count(*) as total
     from per_page_visitor group by path order by total desc, path asc limit ${question.limit + 1} offset ${question.offset}`,
    parameters,
  );
  const [human, ai, total] = (totals.getRowsJS()[0] ?? [0, 0, 0]).map(Number);
  const rows = pages.getRowsJS();
  return {
    totals: { human: human ?? 0, ai: ai ?? 0, total: total ?? 0 },
    visitors: rows.slice(0, question.limit).map((row) => ({ path: row[0] as string, human: Number(row[1]), ai: Number(row[2]), total: Number(row[3]) })),
    hasMore: rows.length > question.limit,
  };
}
