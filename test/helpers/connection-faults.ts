import type pg from 'pg';

/** Where to cut the connection of a query the chooser picked. */
export type ConnectionFault = 'before' | 'after';

/**
 * Cuts a pool's connections around chosen statements, as a network or a terminated
 * backend would: `before` drops the connection instead of sending the statement (the
 * server sees its client go, and rolls back whatever transaction it had open); `after`
 * lets the server run it and drops the connection before the answer arrives (for a
 * COMMIT: committed, and the client never hears). The client then fails as node-postgres
 * does on a lost connection, and the pool discards it.
 */
export function injectConnectionFaults(pool: pg.Pool, choose: (statement: string) => ConnectionFault | undefined): void {
  const patched = new WeakSet<pg.PoolClient>();
  const connect = pool.connect.bind(pool) as () => Promise<pg.PoolClient>;
  const patch = (client: pg.PoolClient): pg.PoolClient => {
    if (patched.has(client)) return client;
    patched.add(client);
    const query = client.query.bind(client) as (...args: unknown[]) => Promise<unknown>;
    const cut = (): Error => {
      (client as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
      return new Error('Connection terminated unexpectedly');
    };
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      // Callback calls (pool.query's own) pass through; Kysely uses promises.
      if (typeof args.at(-1) === 'function') return query(...args);
      const first = args[0];
      const text = typeof first === 'string' ? first : typeof first === 'object' && first !== null && 'text' in first ? String(first.text) : '';
      const fault = choose(text);
      if (fault === 'before') return Promise.reject(cut());
      return query(...args).then((result) => {
        if (fault === 'after') throw cut();
        return result;
      });
    };
    return client;
  };
  (pool as unknown as { connect: (callback?: (error: unknown, client?: pg.PoolClient, release?: () => void) => void) => unknown }).connect = (callback) => {
    const connected = connect().then(patch);
    if (callback === undefined) return connected;
    connected.then(
      (client) => callback(undefined, client, client.release.bind(client)),
      (error: unknown) => callback(error),
    );
    return undefined;
  };
}
