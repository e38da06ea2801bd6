/** Looks one row up by key; lookups that wait for the same batch share one query. */
export type BatchedRead<Row> = (key: string) => Promise<Row | undefined>;

/** Keys per query at most; a fuller batch is sent at once and a new one started. */
const MAX_BATCH = 256;

/**
 * Request coalescing for hot single-row reads over a network round trip (the poll route
 * on PostgreSQL): lookups made before the pending batch is sent, i.e. within one turn of
 * the event loop, go out as one query for all their keys (`load`), and duplicate keys are
 * asked once. A lookup only ever joins a batch that has not been sent yet, so its answer
 * was read after the lookup began: a caller never sees a state older than its request.
 */
export function createBatchedRead<Row>(load: (keys: string[]) => Promise<Row[]>, keyOf: (row: Row) => string): BatchedRead<Row> {
  interface Waiter {
    resolve: (row: Row | undefined) => void;
    reject: (error: unknown) => void;
  }
  let pending: Map<string, Waiter[]> | null = null;

  const send = async (batch: Map<string, Waiter[]>): Promise<void> => {
    // Sent once: whichever comes first, the cap or the end of the turn.
    if (pending === batch) pending = null;
    try {
      const rows = await load([...batch.keys()]);
      const byKey = new Map(rows.map((row) => [keyOf(row), row] as const));
      for (const [key, waiters] of batch) for (const waiter of waiters) waiter.resolve(byKey.get(key));
    } catch (error) {
      for (const waiters of batch.values()) for (const waiter of waiters) waiter.reject(error);
    }
  };

  return (key) =>
    new Promise<Row | undefined>((resolve, reject) => {
      if (pending === null) {
        const batch = new Map<string, Waiter[]>();
        pending = batch;
        // After this turn's I/O callbacks: requests that arrived together are asked together.
        setImmediate(() => {
          if (pending === batch) void send(batch);
        });
      }
      const batch: Map<string, Waiter[]> = pending;
      const waiters = batch.get(key);
      if (waiters === undefined) batch.set(key, [{ resolve, reject }]);
      else waiters.push({ resolve, reject });
      if (batch.size >= MAX_BATCH) void send(batch);
    });
}
