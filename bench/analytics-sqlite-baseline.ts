/**
 * The ingest baseline: the same hits, already classified, hashed and dictionary-encoded
 * the way Docwright stores them, written into Docwright's own raw-hit table (same columns
 * and index, created by the real migrations) by a bare better-sqlite3 prepared-insert
 * loop, one transaction per 1,000 rows. What the server adds on top (HTTP, JSON,
 * validation, classification, hashing, dictionaries, rollups) is the cost measured.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { CLASS_CODES, AGENT_KIND_BASE } from '../src/analytics/analytics-codes.js';
import { createHitClassifier } from '../src/analytics/classification/classify-hit.js';
import { VisitorIdentity } from '../src/analytics/visitor-identity.js';
import { systemClock } from '../src/core/clock.js';
import { migrate } from '../src/db/migrator.js';
import { openSqliteDatabase } from '../src/db/sqlite-database.js';
import type { AnalyticsDataset } from './analytics-dataset.js';

/** Rows column by column: a million of them cost tens of megabytes this way rather than hundreds. */
export interface EncodedHits {
  count: number;
  at: Float64Array;
  page: Int32Array;
  visitor: BigInt64Array;
  classCode: Int8Array;
  /** 0 = no agent. */
  agent: Int32Array;
  userAgent: Int32Array;
  referrer: Array<string | null>;
}

export interface RawInsertResult {
  rows: number;
  seconds: number;
  hitsPerSecond: number;
  /** Rows per CPU second of this process: steadier than the wall-clock rate on a busy machine. */
  hitsPerCpuSecond: number;
}

const INSERT_HIT = `insert into analytics_hits
  (site, at, page, visitor, class, agent, user_agent, referrer, markdown_accept, classifier_version)
  values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;
const ROWS_PER_TRANSACTION = 1000;
const SITE = 1;
const CLASSIFIER_VERSION = 1;

/** Encodes hits [from, to) as the server would (its classifier and visitor hash), outside any timing. */
export function encodeHits(dataset: AnalyticsDataset, from: number, to: number, secret: string, projectId: string): EncodedHits {
  const count = Math.max(0, Math.min(to, dataset.spec.hits) - from);
  const encoded: EncodedHits = {
    count,
    at: new Float64Array(count),
    page: new Int32Array(count),
    visitor: new BigInt64Array(count),
    classCode: new Int8Array(count),
    agent: new Int32Array(count),
    userAgent: new Int32Array(count),
    referrer: new Array<string | null>(count),
  };
  const classifier = createHitClassifier();
  const identity = new VisitorIdentity(secret);
  const pageIds = new Map(dataset.paths.map((path, index) => [path, index + 1]));
  const dictionary = new Map<string, number>();
  const idOf = (key: string): number => {
    let id = dictionary.get(key);
    if (id === undefined) dictionary.set(key, (id = dictionary.size + 1));
    return id;
  };
  let row = 0;
  for (const hit of dataset.hits(from, to)) {
    const classification = classifier.classify({ userAgent: hit.userAgent, path: hit.path });
    const classCode = CLASS_CODES[classification.class];
    encoded.at[row] = hit.timestamp;
    encoded.page[row] = pageIds.get(hit.path) ?? 0;
    encoded.visitor[row] = identity.fromAddress(projectId, hit.ip, hit.userAgent, null);
    encoded.classCode[row] = classCode;
    encoded.agent[row] = classification.agent === null ? 0 : idOf(`${AGENT_KIND_BASE + classCode}\u0000${classification.agent}`);
    encoded.userAgent[row] = idOf(`ua\u0000${hit.userAgent}`);
    encoded.referrer[row] = hit.referrer ?? null;
    row++;
  }
  return encoded;
}

/** Inserts the rows into a fresh, migrated SQLite file (removed afterwards) and times only the insert loop. */
export async function measureRawSqliteInsert(rows: EncodedHits, file: string): Promise<RawInsertResult> {
  rmSync(file, { force: true });
  mkdirSync(dirname(file), { recursive: true });
  const database = openSqliteDatabase(file);
  try {
    await migrate(database, systemClock);
    if (database.raw.dialect !== 'sqlite') throw new Error('expected SQLite');
    const connection = database.raw.connection;
    const insert = connection.prepare(INSERT_HIT);
    const insertSlice = connection.transaction((start: number, end: number) => {
      for (let index = start; index < end; index++) {
        const agent = rows.agent[index]!;
        insert.run(
          SITE,
          rows.at[index],
          rows.page[index],
          rows.visitor[index],
          rows.classCode[index],
          agent === 0 ? null : agent,
          rows.userAgent[index],
          rows.referrer[index],
          0,
          CLASSIFIER_VERSION,
        );
      }
    });
    const startedAt = performance.now();
    const cpuBefore = process.cpuUsage();
    for (let start = 0; start < rows.count; start += ROWS_PER_TRANSACTION) insertSlice(start, Math.min(rows.count, start + ROWS_PER_TRANSACTION));
    const seconds = (performance.now() - startedAt) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    const stored = (connection.prepare('select count(*) as count from analytics_hits').get() as { count: number }).count;
    if (stored !== rows.count) throw new Error(`the raw insert stored ${stored} of ${rows.count} rows`);
    return { rows: rows.count, seconds, hitsPerSecond: rows.count / seconds, hitsPerCpuSecond: rows.count / ((cpu.user + cpu.system) / 1e6) };
  } finally {
    await database.close();
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
  }
}
