import pg from 'pg';
import { afterEach, describe, expect, inject, test } from 'vitest';
import { Notifier, listenerApplicationName, type NotifierLogger } from '../../src/queue/notifier.js';
import { openTestDatabase, type TestDatabase } from '../helpers/test-database.js';
import { startDocwright, type DocwrightProcess } from '../helpers/docwright-process.js';
import { createGate, createLifecycleFixture, eventually, gatedScript, type Gate, type LifecycleFixture } from './lifecycle-fixture.js';

/**
 * Runs `sql` as the operator's psql would, on a connection of its own to the server's
 * `postgres` database (the test database may be refusing connections).
 */
async function admin<T extends pg.QueryResultRow>(sql: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: inject('postgresUrl') });
  await client.connect();
  try {
    return (await client.query<T>(sql, values)).rows;
  } finally {
    await client.end();
  }
}

/** The backend pid of a process's LISTEN connection in `databaseUrl`'s database, or undefined. */
async function listenerBackend(databaseUrl: string, pid: number): Promise<number | undefined> {
  const rows = await admin<{ pid: number }>('select pid from pg_stat_activity where application_name = $1 and datname = $2', [
    listenerApplicationName(pid),
    databaseName(databaseUrl),
  ]);
  return rows[0]?.pid;
}

/** Terminates a process's LISTEN connection; resolves with the backend that was killed. */
async function killListener(databaseUrl: string, pid: number): Promise<number> {
  const backend = await eventually(() => listenerBackend(databaseUrl, pid), 20_000, `a LISTEN connection of process ${pid}`);
  const [row] = await admin<{ killed: boolean }>('select pg_terminate_backend($1) as killed', [backend]);
  expect(row?.killed).toBe(true);
  return backend;
}

/** Waits for a LISTEN connection of `pid` other than `previous`. */
const newListener = (databaseUrl: string, pid: number, previous: number) =>
  eventually(
    async () => {
      const backend = await listenerBackend(databaseUrl, pid);
      return backend !== undefined && backend !== previous ? backend : undefined;
    },
    30_000,
    `process ${pid} listening again`,
  );

const databaseName = (databaseUrl: string): string => new URL(databaseUrl).pathname.slice(1);

/** ALLOW_CONNECTIONS false refuses every new connection, superusers' too; open ones stay. */
const setConnectionsAllowed = (databaseUrl: string, allowed: boolean) => admin(`alter database ${databaseName(databaseUrl)} allow_connections ${allowed}`);

describe('the notifier keeps its LISTEN connection [postgres]', () => {
  let database: TestDatabase;
  let notifier: Notifier | undefined;
  afterEach(async () => {
    await setConnectionsAllowed(database.location, true);
    await notifier?.close();
    await database.close();
  });

  test('killed twice in a row, and with the first reconnect failing, it comes back, logs each failure, and delivers again', async () => {
    database = await openTestDatabase('postgres');
    const logged: Array<{ level: 'info' | 'warn'; message: string }> = [];
    const logger: NotifierLogger = {
      info: (_details, message) => logged.push({ level: 'info', message }),
      warn: (_details, message) => logged.push({ level: 'warn', message }),
    };
    notifier = await Notifier.create(database.database, { logger });
    const received: string[] = [];
    notifier.subscribe('docwright_jobs', (payload) => received.push(payload));
    const url = database.location;

    const first = await killListener(url, process.pid);
    const second = await killListener(url, process.pid).catch(() => undefined);
    // The second kill met either the first's replacement or nothing yet; either way, wait for a live one.
    await newListener(url, process.pid, second ?? first);

    // The original bug: a failed first reconnect was swallowed and LISTEN stayed gone.
    await setConnectionsAllowed(url, false);
    const third = await killListener(url, process.pid);
    await eventually(
      async () => (logged.filter((entry) => entry.message.startsWith('LISTEN connection to PostgreSQL failed')).length >= 2 ? true : undefined),
      20_000,
      'two failed reconnects',
    );
    expect(notifier.listening).toBe(false);
    await setConnectionsAllowed(url, true);
    await newListener(url, process.pid, third);
    await eventually(async () => (notifier!.listening ? true : undefined), 5_000, 'listening');

    const sender = new pg.Client({ connectionString: url });
    await sender.connect();
    await sender.query("select pg_notify('docwright_jobs', 'after-the-kills')");
    await sender.end();
    await eventually(async () => (received.includes('after-the-kills') ? true : undefined), 5_000, 'the notification');
    expect(logged.filter((entry) => entry.message === 'LISTEN connection to PostgreSQL lost; reconnecting').length).toBeGreaterThanOrEqual(3);
    expect(
      logged.filter((entry) => entry.level === 'info' && entry.message === 'LISTEN connection to PostgreSQL re-established').length,
    ).toBeGreaterThanOrEqual(3);
  });
});

/**
 * Issue 12, test 5: kill the LISTEN connection of worker processes twice in a row (the
 * second time while new connections are refused, so the first reconnect fails): they still
 * wake on NOTIFY. Their idle poll is 60 s, so a pickup within seconds is the notification's.
 */
describe('workers whose LISTEN connection was killed twice in a row still wake on NOTIFY [postgres]', () => {
  let f: LifecycleFixture;
  let gate: Gate;
  const children: DocwrightProcess[] = [];
  afterEach(async () => {
    gate.open();
    await setConnectionsAllowed(f.t.testDatabase.location, true);
    await Promise.all(children.splice(0).map((child) => child.kill()));
    await f.close();
  });

  test('each of two workers picks up a new job within seconds', async () => {
    gate = createGate();
    f = await createLifecycleFixture('postgres', gatedScript(gate));
    const url = f.t.testDatabase.location;
    // Both jobs are one project's: its default cap (1 at concurrency 1) would hold the second back.
    const environment = f.env({
      DOCWRIGHT_PUBLIC_URL: 'http://docs.test',
      DOCWRIGHT_WORKER_POLL_SECONDS: '60',
      DOCWRIGHT_WORKER_CONCURRENCY: '1',
      DOCWRIGHT_JOBS_PER_PROJECT: '2',
    });
    const workers = await Promise.all([startDocwright({ args: ['worker'], env: environment }), startDocwright({ args: ['worker'], env: environment })]);
    children.push(...workers);
    // Both have made their first claim (nothing queued) and now sleep for the idle poll.
    await new Promise((resolve) => setTimeout(resolve, 500));

    for (const worker of workers) {
      const first = await killListener(url, worker.pid);
      await newListener(url, worker.pid, first);
    }
    await setConnectionsAllowed(url, false);
    const killed = await Promise.all(workers.map((worker) => killListener(url, worker.pid)));
    for (const worker of workers) await worker.waitForLog('LISTEN connection to PostgreSQL failed', 20_000);
    await setConnectionsAllowed(url, true);
    await Promise.all(workers.map((worker, index) => newListener(url, worker.pid, killed[index]!)));
    for (const worker of workers) await worker.waitForLog('LISTEN connection to PostgreSQL re-established', 20_000);

    const pickups: number[] = [];
    const holders = new Set<string>();
    for (const prompt of ['Add a troubleshooting page', 'Is the quickstart fine?']) {
      const createdAt = Date.now();
      const { job } = await f.t.services.jobs.create(f.project, prompt);
      const holder = await eventually(
        async () => {
          const row = await f.t.services.database.db.selectFrom('job_queue').select('locked_by').where('job_id', '=', job.id).executeTakeFirst();
          return row?.locked_by ?? undefined;
        },
        30_000,
        `job ${job.id} claimed`,
      );
      pickups.push(Date.now() - createdAt);
      holders.add(holder);
    }
    // Each worker runs one job at a time and the first is held at the model: both woke.
    expect(holders.size).toBe(2);
    for (const pickup of pickups) expect(pickup).toBeLessThan(5_000);
    console.info(`pickup after two LISTEN kills: ${pickups.join(' ms, ')} ms (idle poll 60 s)`);
  });
});
