/**
 * Which raw hits a PostgreSQL fold may take.
 *
 * Ingest transactions run concurrently and commit in any order, so "every hit up to some
 * number" cannot be read off a sequence. Each hit instead carries the id of the
 * transaction that wrote it (analytics_hits.transaction_id, migration 004), and a fold
 * takes the hits of transaction ids in [folded mark, horizon), where every transaction
 * below the horizon that writes hits has ended. Its hits are then either all visible or,
 * had it rolled back, never will be, so the mark can move to the horizon and no hit that
 * commits later can land below it.
 *
 * The horizon is the smallest of
 *   - the end (xmax) of the statement's snapshot: later transactions get larger ids, and
 *   - the id of every transaction running at that snapshot that holds the ingest lock.
 * Every writer of analytics_hits takes the ingest lock (shared, so writers never wait for
 * each other) before its first write, which is when it gets its id, and keeps it until
 * it ends. A transaction running at the snapshot that is missing from pg_locks a moment
 * later has therefore ended. Unrelated transactions, such as a long job elsewhere in the
 * cluster, do not hold folds back, which the cluster-wide snapshot xmin would.
 *
 * pg_locks shows transaction ids in their 32-bit form; a running transaction's id is
 * within 2^31 of the snapshot's, so its low 32 bits identify it.
 */

/** Keys of the ingest lock, in pg_advisory_xact_lock_shared(int, int) form (pg_locks: classid, objid, objsubid 2). */
export const INGEST_LOCK_KEYS = [0x44770001, 1] as const;

/** Starts an ingest transaction: one round trip for the begin and the lock. */
export const BEGIN_INGEST = `begin; select pg_advisory_xact_lock_shared(${INGEST_LOCK_KEYS[0]}, ${INGEST_LOCK_KEYS[1]})`;

/** One row, `horizon`: an xid8 as text. */
export const FOLD_HORIZON = `
  with snapshot as materialized (select pg_current_snapshot() as taken),
  writers as (
    select min(transactionid::text::bigint) filter (where locktype = 'transactionid') as short_id
    from pg_locks
    where granted and (
      (locktype = 'transactionid' and mode = 'ExclusiveLock')
      or (locktype = 'advisory' and database = (select oid from pg_database where datname = current_database())
        and classid = ${INGEST_LOCK_KEYS[0]} and objid = ${INGEST_LOCK_KEYS[1]} and objsubid = 2))
    group by virtualtransaction
    having bool_or(locktype = 'advisory')
  )
  select coalesce(
    (select min(running::text::bigint) from pg_snapshot_xip(snapshot.taken) as running
      where running::text::bigint % 4294967296 in (select short_id from writers where short_id is not null)),
    pg_snapshot_xmax(snapshot.taken)::text::bigint)::text as horizon
  from snapshot`;

/** One row, `end`: the current snapshot's xmax, as text. Every transaction committed so far has a smaller id. */
export const SNAPSHOT_END = 'select pg_snapshot_xmax(pg_current_snapshot())::text as end';
