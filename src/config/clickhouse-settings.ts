/** Database and cluster names: plain identifiers, so they never need quoting rules of their own. */
const isPlainIdentifier = (name: string): boolean => /^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(name);

/** Where analytics live when DOCWRIGHT_ANALYTICS_URL is set (docs/operations.md, "ClickHouse"). */
export interface ClickHouseSettings {
  /** http(s)://host:port of the HTTP interface, without credentials or path. */
  url: string;
  username: string;
  /** Never logged; kept out of `url`. */
  password: string;
  database: string;
  /** Cluster name: DDL runs ON CLUSTER, tables are Replicated* under Distributed ones. */
  cluster: string | undefined;
  /**
   * The ingest spool's SQLite file (clickhouse-spool.ts): CLICKHOUSE_SPOOL_FILE in the data
   * directory, shared by every process on it. Absent: a spool in memory (tests, tools).
   */
  spoolFile?: string;
  /**
   * Hits the spool may hold, claimed or not, before ingest answers 503 `analytics_backlog`
   * (DOCWRIGHT_ANALYTICS_SPOOL_MAX_HITS). Absent: DEFAULT_SPOOL_MAX_HITS.
   */
  spoolMaxHits?: number;
}

/** About 120 MB of spool file at the benchmark's 60 bytes per hit: minutes of a busy site's traffic while ClickHouse is away. */
export const DEFAULT_SPOOL_MAX_HITS = 2_000_000;

/** The ClickHouse ingest spool's file name in the data directory (docs/operations.md, "ClickHouse"). */
export const CLICKHOUSE_SPOOL_FILE = 'clickhouse-spool.sqlite';

export interface ClickHouseEnvironment {
  url: string;
  user?: string | undefined;
  password?: string | undefined;
  cluster?: string | undefined;
}

/**
 * Reads `http://user:pass@host:8123/db`: the path names the database (default
 * `docwright`); user and password from their own settings win over the URL's. Throws a
 * message that names the setting but never echoes the password.
 */
export function parseClickHouseSettings(environment: ClickHouseEnvironment): ClickHouseSettings {
  let parsed: URL;
  try {
    parsed = new URL(environment.url);
  } catch {
    throw new TypeError('must be an http:// or https:// URL such as http://127.0.0.1:8123/docwright');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new TypeError('must be an http:// or https:// URL (the HTTP interface, port 8123)');
  const path = decodeURIComponent(parsed.pathname.replace(/^\/+|\/+$/g, ''));
  const database = path === '' ? 'docwright' : path;
  if (!isPlainIdentifier(database)) throw new TypeError('the path must be a database name of letters, digits and underscores');
  const cluster = environment.cluster?.trim() || undefined;
  if (cluster !== undefined && !isPlainIdentifier(cluster)) throw new TypeError('the cluster name must be letters, digits and underscores');
  return {
    url: `${parsed.protocol}//${parsed.host}`,
    username: environment.user ?? (decodeURIComponent(parsed.username) || 'default'),
    password: environment.password ?? decodeURIComponent(parsed.password),
    database,
    cluster,
  };
}
