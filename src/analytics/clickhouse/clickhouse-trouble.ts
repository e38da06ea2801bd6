import { ClickHouseError, type ClickHouseClient } from '@clickhouse/client';
import { DataServerTrouble } from '../../db/database-unavailable.js';

// ClickHouse's error numbers (src/Common/ErrorCodes.cpp) that say a server, replica or
// ZooKeeper could not take part, or that the server is overloaded: the statement was fine,
// and sent again later it may well succeed. Every other numbered error (a syntax error, an
// unknown table) is a fault of ours and stays a 500.
const UNAVAILABLE = new Set([
  '209', // SOCKET_TIMEOUT
  '210', // NETWORK_ERROR
  '225', // NO_ZOOKEEPER
  '244', // UNEXPECTED_ZOOKEEPER_ERROR
  '254', // NO_ACTIVE_REPLICAS
  '265', // NO_AVAILABLE_REPLICA
  '279', // ALL_CONNECTION_TRIES_FAILED
  '285', // TOO_FEW_LIVE_REPLICAS
]);
const BUSY = new Set([
  '159', // TIMEOUT_EXCEEDED
  '202', // TOO_MANY_SIMULTANEOUS_QUERIES
  '252', // TOO_MANY_PARTS (inserts faster than merges)
]);

/**
 * What a failed ClickHouse call means for the API: a DataServerTrouble (answered 503 with
 * Retry-After, like a lost database) when ClickHouse or what stands in front of it could
 * not answer, else the error as it was.
 */
export function clickhouseTrouble(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  const code = serverCode(error);
  if (code !== null) {
    if (UNAVAILABLE.has(code)) return new DataServerTrouble('database_unavailable', `ClickHouse could not answer: ${error.message}`, { cause: error });
    if (BUSY.has(code)) return new DataServerTrouble('database_busy', `ClickHouse gave up: ${error.message}`, { cause: error });
    return error;
  }
  // A refused or lost connection carries its socket code (ECONNREFUSED, …), which the API
  // already answers with 503. A plain error with neither that nor a ClickHouse number is an
  // HTTP error answered by something in front of ClickHouse (a balancer's 502 or 503 while
  // the server is down; the client keeps only the body), a request timeout, or a cut-off answer.
  if (error.constructor === Error && (error as { code?: unknown }).code === undefined)
    return new DataServerTrouble('database_unavailable', `ClickHouse could not be reached: ${error.message.slice(0, 500)}`, { cause: error });
  return error;
}

/**
 * ClickHouse's number for an error it answered: the client's ClickHouseError has it for
 * current servers, which word errors `Code: N. DB::Exception: …`; 18.16 words them
 * `Code: N, e.displayText() = DB::Exception: …`, which the client leaves a plain Error.
 */
export function serverCode(error: Error): string | null {
  if (error instanceof ClickHouseError) return error.code;
  return /^Code: (\d+)[.,] /.exec(error.message)?.[1] ?? null;
}

/**
 * The client, its calls' failures passed through clickhouseTrouble. Patched on the instance:
 * the client has no hook for its errors, and every store query goes through these four.
 */
export function withTroubleNamed(client: ClickHouseClient): ClickHouseClient {
  // The four methods are generic; the wrapper keeps each one's own type (F) rather than inferring one instance of it.
  const named = <F extends (...args: never[]) => Promise<unknown>>(call: F): F =>
    (async (...args: Parameters<F>) => {
      try {
        return await call(...args);
      } catch (error) {
        throw clickhouseTrouble(error);
      }
    }) as F;
  client.query = named(client.query.bind(client));
  client.insert = named(client.insert.bind(client));
  client.command = named(client.command.bind(client));
  client.exec = named(client.exec.bind(client));
  return client;
}
