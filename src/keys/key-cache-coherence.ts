import type BetterSqlite3 from 'better-sqlite3';
import { randomBase62 } from '../core/ids.js';
import type { Database } from '../db/database.js';
import type { Notifier } from '../queue/notifier.js';

/**
 * Keeps ApiKeyService's cache of verified keys true to the store in every process, so a
 * revoked key (or a deleted project's key) is refused by every process on its next
 * request, while a poll loop still costs no store round trip per request.
 */
export interface KeyCacheCoherence {
  /** A version to remember with a key about to be verified; read before the store is asked. */
  stamp(): number;
  /**
   * Whether an entry verified at `stamp` may still answer, without waiting: the stamp to
   * keep, or null when the store must be asked again.
   */
  check(keyId: string, stamp: number, now: number): number | null;
  /** Makes a change to keys (revocation, project deletion) known to every process before it resolves. */
  announce(change: string): Promise<void>;
  close(): void;
}

/** No other process to hear about: the cache's own expiry is the only bound (tests, tools). */
export const PROCESS_LOCAL_COHERENCE: KeyCacheCoherence = {
  stamp: () => 0,
  check: (_keyId, stamp) => stamp,
  announce: async () => {},
  close: () => {},
};

/**
 * SQLite: every process on the machine shares the file, and `PRAGMA data_version` on the
 * query-only reader connection changes whenever any other connection (this process's
 * writer, another process) commits. While it stands still nothing changed, so a cached key
 * answers for the cost of that pragma (about a microsecond). When it moved, the key's row
 * is read again with a statement prepared once on the reader (a primary-key point read,
 * a few microseconds, still synchronous): a busy store costs that, not a cache miss.
 */
export function sqliteKeyCacheCoherence(database: Database): KeyCacheCoherence {
  const { raw } = database;
  if (raw.dialect !== 'sqlite') throw new Error('sqliteKeyCacheCoherence needs a SQLite database');
  let statements: { version: BetterSqlite3.Statement; key: BetterSqlite3.Statement } | null = null;
  const prepared = () => {
    const reader = raw.reader();
    // `:memory:` has one connection and so one process: in-process eviction is the whole story.
    if (reader === null) return null;
    statements ??= {
      version: reader.prepare('pragma data_version').pluck(),
      key: reader.prepare('select revoked_at, expires_at from api_keys where id = ?'),
    };
    return statements;
  };
  return {
    stamp: () => (prepared()?.version.get() as number | undefined) ?? 0,
    check(keyId, stamp, now) {
      const current = prepared();
      if (current === null) return stamp;
      const version = current.version.get() as number;
      if (version === stamp) return stamp;
      const row = current.key.get(keyId) as { revoked_at: number | null; expires_at: number | null } | undefined;
      if (row?.revoked_at !== null || (row.expires_at !== null && row.expires_at <= now)) return null;
      return version;
    },
    announce: async () => {},
    close: () => {},
  };
}

/**
 * PostgreSQL: processes may sit on several machines, and a read per request is a round
 * trip, so changes travel by NOTIFY on `docwright_keys`. Any key change, and any moment
 * the LISTEN connection was down (notifications may have been missed), moves one version
 * that every cached entry is checked against: revocations are rare, so dropping the whole
 * cache then costs one lookup per active key.
 */
export function postgresKeyCacheCoherence(notifier: Notifier): KeyCacheCoherence {
  let version = 0;
  const bump = () => {
    version += 1;
  };
  const unsubscribers = [notifier.subscribe('docwright_keys', bump), notifier.onListenerChange(bump)];
  return {
    stamp: () => version,
    check: (_keyId, stamp) => (notifier.listening && stamp === version ? stamp : null),
    async announce(change) {
      bump();
      // A nonce, so the echo this process waits for is its own announcement.
      await notifier.publishAndConfirm('docwright_keys', `${change}#${randomBase62(8)}`);
    },
    close() {
      for (const unsubscribe of unsubscribers) unsubscribe();
    },
  };
}

export function keyCacheCoherence(database: Database, notifier: Notifier): KeyCacheCoherence {
  return database.dialect === 'postgres' ? postgresKeyCacheCoherence(notifier) : sqliteKeyCacheCoherence(database);
}
