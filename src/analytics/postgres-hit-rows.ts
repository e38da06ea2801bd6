import type { HitBatch } from './analytics-store.js';
import { binaryBigintColumn, binaryIntegerColumn, binaryTextArray, INT2, INT4, INT8, type IntegerType } from './postgres-binary-array.js';

/**
 * A batch row and its hits, in one statement: the batch is visible exactly when its hits
 * are. Site and classifier version are the same for every row ($1, $2), $3 is the
 * number of rows, and the rest come as arrays of that length, one per column (see
 * hitColumns). The arrays are unnested in the select list, which PostgreSQL steps through
 * in lockstep one row at a time; `unnest(…) as given (…)` in FROM first copied every array
 * into a tuplestore of its own, about 0.8 µs of PostgreSQL's CPU per hit of 2.8.
 */
export const INSERT_HITS = `with batch as (insert into analytics_ingest_batches (hits) values ($3) returning id)
  insert into analytics_hits
  (site, at, page, visitor, class, agent, user_agent, referrer, markdown_accept, classifier_version, batch,
   category, verification, read_kind, status, referral, address_block, evidence)
  select $1::integer, unnest($4::bigint[]), unnest($5::integer[]), unnest($6::bigint[]), unnest($7::smallint[]), unnest($8::integer[]),
    unnest($9::integer[]), unnest($10::text[]), unnest($11::smallint[]), $2::integer, (select id from batch),
    unnest($12::smallint[]), unnest($13::smallint[]), unnest($14::smallint[]), unnest($15::smallint[]), unnest($16::integer[]),
    unnest($17::text[]), unnest($18::smallint[])`;

/** Prepared once per connection: planning the statement would otherwise cost as much as a few hundred rows. */
export const INSERT_HITS_NAME = 'docwright_insert_hits';

export interface HitRow {
  batch: HitBatch;
  index: number;
}

/**
 * The common group: no event ids, one site and classifier version. Its rows go in one
 * statement as they are (with their signed nonces' claim, postgres-nonce-claims.ts); null
 * for any other group.
 */
export function singleStatementGroup(batches: HitBatch[]): HitRow[] | null {
  const first = batches[0]!;
  const rows: HitRow[] = [];
  for (const batch of batches) {
    if (batch.site !== first.site || batch.classifierVersion !== first.classifierVersion) return null;
    for (let index = 0; index < batch.count; index++) {
      if (batch.eventId[index] !== null && batch.eventId[index] !== undefined) return null;
      rows.push({ batch, index });
    }
  }
  return rows;
}

/**
 * The parameters of INSERT_HITS for rows of one site and classifier version: the columns
 * as binary arrays (postgres-binary-array.ts), which PostgreSQL reads without parsing. A
 * 0 in a nullable id or status column is "none", stored as null.
 */
export function hitColumns(rows: HitRow[]): unknown[] {
  const int = (type: IntegerType, column: (batch: HitBatch) => ArrayLike<number> | undefined, zeroIsNull = false): Buffer =>
    binaryIntegerColumn(type, rows, column, zeroIsNull);
  const text = (column: (batch: HitBatch) => ReadonlyArray<string | null> | undefined): Buffer =>
    binaryTextArray(rows.length, (position) => column(rows[position]!.batch)?.[rows[position]!.index] ?? null);
  return [
    rows[0]!.batch.site,
    rows[0]!.batch.classifierVersion,
    rows.length,
    int(INT8, (batch) => batch.at),
    int(INT4, (batch) => batch.page),
    binaryBigintColumn(rows, (batch) => batch.visitor),
    int(INT2, (batch) => batch.classCode),
    int(INT4, (batch) => batch.agent, true),
    int(INT4, (batch) => batch.userAgent, true),
    text((batch) => batch.referrer),
    int(INT2, (batch) => batch.markdownAccept),
    int(INT2, (batch) => batch.category),
    int(INT2, (batch) => batch.verification),
    int(INT2, (batch) => batch.readKind),
    int(INT2, (batch) => batch.status, true),
    int(INT4, (batch) => batch.referral, true),
    text((batch) => batch.addressBlock),
    int(INT2, (batch) => batch.evidence),
  ];
}
