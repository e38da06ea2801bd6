/**
 * Errors that say the database could not be reached or let go of the request's work,
 * not that the request was wrong: a lost or refused connection, a server shutting down or
 * terminating the backend, too many connections, or (both dialects) a transaction the
 * database gave up on to break a deadlock or a busy lock. The request may succeed if it
 * is sent again, so the API answers 503 with Retry-After instead of a bare 500.
 */
export type DatabaseTrouble = 'database_unavailable' | 'database_busy';

/**
 * A data server's failure that its client named by other means than the codes below (such
 * as ClickHouse's own error numbers, clickhouse-trouble.ts): the API answers it like them.
 */
export class DataServerTrouble extends Error {
  constructor(
    readonly trouble: DatabaseTrouble,
    message: string,
    options: { cause: unknown },
  ) {
    super(message, options);
    this.name = 'DataServerTrouble';
  }
}

// SQLSTATE classes and codes (PostgreSQL appendix A).
const UNAVAILABLE_STATES = new Set(['57P01', '57P02', '57P03', '53300']);
const BUSY_STATES = new Set(['40001', '40P01', '55P03']);
// Node socket errors of the connection to the server.
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
// node-postgres says these in words only (no code).
const LOST_CONNECTION =
  /^(Connection terminated|Client has encountered a connection error and is not queryable|Client was closed and is not queryable|timeout exceeded when trying to connect)/;

export function databaseTrouble(error: unknown): DatabaseTrouble | undefined {
  if (!(error instanceof Error)) return undefined;
  if (error instanceof DataServerTrouble) return error.trouble;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (code.startsWith('08') || UNAVAILABLE_STATES.has(code) || SOCKET_CODES.has(code)) return 'database_unavailable';
    if (BUSY_STATES.has(code) || code.startsWith('SQLITE_BUSY')) return 'database_busy';
  }
  if (LOST_CONNECTION.test(error.message)) return 'database_unavailable';
  // A failure reported for a whole group (AggregateError) or wrapped by a caller.
  if (error instanceof AggregateError) return error.errors.map(databaseTrouble).find((trouble) => trouble !== undefined);
  return error.cause === undefined ? undefined : databaseTrouble(error.cause);
}
