import { readdirSync, readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { sql } from 'kysely';
import { afterEach, describe, expect, test } from 'vitest';
import { buildApp } from '../../src/app/build-app.js';
import { createLogger } from '../../src/app/logger.js';
import { features } from '../../src/server/features.js';
import type { Database } from '../../src/db/database.js';
import { ANALYTICS_BACKENDS } from '../helpers/test-database.js';
import { clickhouseRows } from '../helpers/clickhouse-rows.js';
import { createAnalyticsKit, dayTime, USER_AGENTS, type AnalyticsKit } from '../helpers/analytics-kit.js';

/** Every row of every table, as text (64-bit integers as decimal strings). */
async function dumpDatabase(database: Database): Promise<string> {
  const parts: string[] = [];
  const stringify = (rows: unknown[]) => JSON.stringify(rows, (_key, value) => (typeof value === 'bigint' ? value.toString() : value));
  if (database.raw.dialect === 'sqlite') {
    const connection = database.raw.connection;
    const tables = connection.prepare("select name from sqlite_master where type = 'table'").all() as Array<{ name: string }>;
    for (const { name } of tables) parts.push(name, stringify(connection.prepare(`select * from "${name}"`).safeIntegers(true).all()));
    expect(tables.map((table) => table.name)).toContain('analytics_hits');
  } else {
    const { rows: tables } = await database.raw.pool.query<{ name: string }>(
      "select table_name as name from information_schema.tables where table_schema = 'public'",
    );
    for (const { name } of tables) parts.push(name, stringify((await database.raw.pool.query(`select * from "${name}"`)).rows));
    expect(tables.map((table) => table.name)).toContain('analytics_hits');
  }
  return parts.join('\n');
}

const ADDRESSES = ['203.0.113.197', '198.51.100.213', '2001:db8:feed:beef::4242'];
/** Only people come from here: nothing of this address may be kept, not even its block. */
const PERSON_ONLY = '192.0.2.55';

describe.each(ANALYTICS_BACKENDS)('visitor privacy [%s]', (dialect) => {
  let kit: AnalyticsKit;
  afterEach(async () => kit.close());

  test('raw IP addresses are stored nowhere: not in any table, not in the database files, not in the logs', async () => {
    kit = await createAnalyticsKit(dialect);
    const logLines: string[] = [];
    const destination = new Writable({
      write: (chunk, _encoding, callback) => {
        logLines.push(String(chunk));
        callback();
      },
    });
    // A second app on the same services, logging everything, to check the request logs too.
    const app = await buildApp({ services: kit.t.services, logger: createLogger({ level: 'trace', destination }), features });
    await kit.t.services.projects.update(kit.projectId, { settings: { allowedOrigins: ['https://docs.example.com'] } });
    try {
      const events = ADDRESSES.flatMap((ip, index) => [
        { id: `e${index}`, path: `/page-${index}`, ip, userAgent: USER_AGENTS.human, referrer: 'https://www.google.com/' },
        { path: '/guide.md', ip, userAgent: USER_AGENTS.ai, timestamp: dayTime(kit.t, -1) },
        { path: '/', ip: `::ffff:${ADDRESSES[0]}`, userAgent: USER_AGENTS.bot },
      ]);
      events.push({ id: 'person-only', path: '/person-only', ip: PERSON_ONLY, userAgent: USER_AGENTS.human, referrer: 'https://www.google.com/' });
      const sent = await app.inject({
        method: 'POST',
        url: `/v1/analytics/${kit.projectId}/events`,
        headers: { authorization: `Bearer ${kit.ingestKey}` },
        payload: { events },
        remoteAddress: ADDRESSES[1],
      });
      expect(sent.json().accepted).toBe(events.length);
      for (const ip of [...ADDRESSES, PERSON_ONLY]) {
        const beacon = await app.inject({
          method: 'POST',
          url: `/v1/analytics/${kit.projectId}/collect`,
          headers: { origin: 'https://docs.example.com', 'content-type': 'text/plain', 'user-agent': USER_AGENTS.human },
          payload: JSON.stringify({ path: '/beacon' }),
          remoteAddress: ip,
        });
        expect(beacon.statusCode).toBe(204);
      }
      // Reports (which read the raw hits not folded yet), then a fold into every rollup table before the dump.
      for (const report of ['visitors', 'visitors/daily', 'traffic'] as const) expect((await kit.get(report)).statusCode).toBe(200);
      await kit.fold();
      // A visitor is address + user agent: the assistant on an address is not the person's browser there.
      expect((await kit.get('visitors')).json().totals).toEqual({ human: 4, ai: 3, total: 7 });

      let dump = await dumpDatabase(kit.t.services.database);
      if (dialect === 'clickhouse') {
        const tables = await clickhouseRows<{ name: string }>(
          kit.t,
          "select name from system.tables where database = currentDatabase() and engine != 'MaterializedView'",
        );
        expect(tables.map((table) => table.name)).toContain('analytics_hits');
        for (const { name } of tables) dump += `\n${name}\n${JSON.stringify(await clickhouseRows(kit.t, `select * from ${name}`))}`;
      }
      expect(dump).toContain('/page-0');
      for (const ip of [...ADDRESSES, PERSON_ONLY]) expect(dump).not.toContain(ip);
      // A non-human hit keeps only the aligned block around its address, for re-verification when the
      // ranges change (docs/classification.md); a person keeps nothing of theirs.
      expect(dump).not.toContain('192.0.2.');
      const kept = dump.match(/203\.0\.113\.[0-9./]*/g) ?? [];
      expect(kept).toContain('203.0.113.0/24');
      for (const text of kept) expect(text).toMatch(/^203\.0\.113\.0\/2[4-8]$/);
      // SQLite: the database's files; ClickHouse: its ingest spool's, where every hit waits first.
      {
        const directory = dialect === 'sqlite' ? kit.t.testDatabase.dataDir : kit.t.config.dataDir;
        const prefix = dialect === 'sqlite' ? 'docwright.sqlite' : 'clickhouse-spool.sqlite';
        const files = dialect === 'postgres' ? [] : readdirSync(directory).filter((file) => file.startsWith(prefix));
        if (dialect !== 'postgres') expect(files.length).toBeGreaterThan(0);
        for (const file of files) {
          const bytes = readFileSync(`${directory}/${file}`);
          for (const ip of [...ADDRESSES, PERSON_ONLY]) expect(bytes.includes(Buffer.from(ip)), `${file} holds ${ip}`).toBe(false);
        }
      }
      expect(logLines.length).toBeGreaterThan(0);
      for (const ip of [...ADDRESSES, PERSON_ONLY]) expect(logLines.join('')).not.toContain(ip);
    } finally {
      await app.close();
    }
  });

  /** Visitor numbers as text: 63 bits do not survive a JavaScript number. */
  async function storedVisitors(): Promise<string[]> {
    if (dialect === 'clickhouse') {
      return (await clickhouseRows<{ visitor: string }>(kit.t, 'select toString(visitor) as visitor from analytics_hits order by at')).map(
        (row) => row.visitor,
      );
    }
    const rows = await kit.t.services.database.db
      .selectFrom('analytics_hits')
      .select(sql<string>`cast(visitor as text)`.as('visitor'))
      .orderBy('at')
      .execute();
    return rows.map((row) => row.visitor);
  }

  test.each([true, false])('with rotateVisitorIdsDaily %s, the same address and agent on two days is two visitors only when rotating', async (rotate) => {
    kit = await createAnalyticsKit(dialect);
    await kit.t.services.projects.update(kit.projectId, { settings: { rotateVisitorIdsDaily: rotate } });
    const hit = (day: number, hour: number) => ({
      path: '/a',
      ip: '203.0.113.9',
      userAgent: USER_AGENTS.human,
      timestamp: dayTime(kit.t, day, hour * 3_600_000),
    });
    await kit.send([hit(-2, 1), hit(-2, 23), hit(-1, 0), hit(-1, 12)]);
    const [first, sameDay, nextDay, nextDayLater] = await storedVisitors();
    expect(sameDay).toBe(first);
    expect(nextDayLater).toBe(nextDay);
    if (rotate) expect(nextDay).not.toBe(first);
    else expect(nextDay).toBe(first);
    expect((await kit.get('visitors')).json().totals.human).toBe(rotate ? 2 : 1);
    // A visitor id the sender supplies is the sender's to rotate: it is never mixed with the day.
    await kit.send([
      { path: '/b', visitorId: 'reader', userAgent: USER_AGENTS.human, timestamp: dayTime(kit.t, -2) },
      { path: '/b', visitorId: 'reader', userAgent: USER_AGENTS.human, timestamp: dayTime(kit.t, -1) },
    ]);
    expect((await kit.get('visitors')).json().visitors).toContainEqual({ path: '/b', human: 1, ai: 0, total: 1 });
  });
});
