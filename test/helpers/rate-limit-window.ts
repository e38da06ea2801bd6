import { sql } from 'kysely';
import type { Database } from '../../src/db/database.js';
import { windowViewQuery } from '../../src/rate-limit/sliding-window-limiter.js';

/**
 * Stores `count` accepted hits for a project as the limiter would have (seq 1…count,
 * `spacingMs` apart from `firstAt`, each kept with limit `kept`), in one statement.
 */
export async function seedAcceptedHits(
  database: Database,
  projectId: string,
  bucket: string,
  count: number,
  firstAt: number,
  kept: number,
  spacingMs = 1,
): Promise<void> {
  if (database.dialect === 'postgres') {
    await sql`insert into rate_limit_hits (project_id, bucket, seq, at, kept)
      select ${projectId}, ${bucket}, n, ${firstAt}::bigint + (n - 1) * ${spacingMs}::bigint, ${kept} from generate_series(1, ${count}::bigint) as n`.execute(
      database.db,
    );
    await sql`analyze rate_limit_hits`.execute(database.db);
    return;
  }
  await sql`with recursive numbers(n) as (select 1 union all select n + 1 from numbers where n < ${count})
    insert into rate_limit_hits (project_id, bucket, seq, at, kept) select ${projectId}, ${bucket}, n, ${firstAt} + (n - 1) * ${spacingMs}, ${kept} from numbers`.execute(
    database.db,
  );
}

/** The plan of the limiter's window read, and on PostgreSQL the pages it touched (shared buffers hit or read). */
export async function windowPlanCost(database: Database, projectId: string, bucket: string, since: number): Promise<{ plan: string; pages: number }> {
  const query = windowViewQuery(database.db, projectId, bucket, since).compile();
  const raw = database.raw;
  if (raw.dialect === 'postgres') {
    const { rows } = await raw.pool.query<{ 'QUERY PLAN': [{ Plan: Record<string, unknown> }] }>(`explain (analyze, buffers, format json) ${query.sql}`, [
      ...query.parameters,
    ]);
    const plan = rows[0]!['QUERY PLAN'][0].Plan;
    const nodeTypes: string[] = [];
    const walk = (node: Record<string, unknown>): void => {
      nodeTypes.push(String(node['Node Type']));
      for (const child of (node.Plans as Array<Record<string, unknown>> | undefined) ?? []) walk(child);
    };
    walk(plan);
    return { plan: nodeTypes.join(', '), pages: Number(plan['Shared Hit Blocks']) + Number(plan['Shared Read Blocks']) };
  }
  const steps = raw.connection.prepare(`explain query plan ${query.sql}`).all(...query.parameters) as Array<{ detail: string }>;
  return { plan: steps.map((step) => step.detail).join('\n'), pages: 0 };
}
