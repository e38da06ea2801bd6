import { createClient } from '@clickhouse/client';
import { describe, expect, inject, test } from 'vitest';
import { loadClickHouseMigrations, migrateClickHouse } from '../../../src/analytics/clickhouse/clickhouse-migrations.js';
import { parseClickHouseSettings } from '../../../src/config/clickhouse-settings.js';
import { ConfigError, loadConfig } from '../../../src/config/load-config.js';
import { ManualClock } from '../../../src/core/clock.js';
import { createAnalyticsKit, USER_AGENTS } from '../../helpers/analytics-kit.js';
import { clickhouseCount } from '../../helpers/clickhouse-rows.js';
import { freePort } from '../../helpers/free-port.js';
import { createClickHouseDatabase } from '../../helpers/test-database.js';

describe('ClickHouse settings', () => {
  test('URL, user and password: the variables win over the URL; the path names the database', () => {
    expect(parseClickHouseSettings({ url: 'http://u:p%40ss@ch.internal:8123/analytics' })).toEqual({
      url: 'http://ch.internal:8123',
      username: 'u',
      password: 'p@ss',
      database: 'analytics',
      cluster: undefined,
    });
    expect(parseClickHouseSettings({ url: 'https://ch:8443', user: 'svc', password: 'x', cluster: 'main' })).toMatchObject({
      url: 'https://ch:8443',
      username: 'svc',
      password: 'x',
      database: 'docwright',
      cluster: 'main',
    });
  });

  test('a bad setting is a config error that never shows the password', () => {
    const load = (environment: Record<string, string>) => () => loadConfig({ DOCWRIGHT_DATA_DIR: '/tmp', DOCWRIGHT_SECRET: 'x'.repeat(40), ...environment });
    for (const url of ['ftp://u:hunter2@h/db', 'http://u:hunter2@h/bad-name', 'http://u:hunter2@h/a/b', 'not a url hunter2']) {
      expect(load({ DOCWRIGHT_ANALYTICS_URL: url })).toThrow(ConfigError);
      try {
        load({ DOCWRIGHT_ANALYTICS_URL: url })();
      } catch (error) {
        expect((error as Error).message).toContain('DOCWRIGHT_ANALYTICS_URL');
        expect((error as Error).message).not.toContain('hunter2');
      }
    }
    expect(load({ DOCWRIGHT_ANALYTICS_URL: 'http://h:8123/db', DOCWRIGHT_ANALYTICS_CLUSTER: 'a;b' })).toThrow(/cluster name/);
    expect(load({ DOCWRIGHT_ANALYTICS_PASSWORD: 'hunter2' })).toThrow(/only with DOCWRIGHT_ANALYTICS_URL/);
    expect(load({ DOCWRIGHT_ANALYTICS_SPOOL_MAX_HITS: '5000' })).toThrow(/DOCWRIGHT_ANALYTICS_SPOOL_MAX_HITS: takes effect only with DOCWRIGHT_ANALYTICS_URL/);
    for (const hits of ['999', '1.5', '100000001', 'lots'])
      expect(load({ DOCWRIGHT_ANALYTICS_URL: 'http://h:8123/db', DOCWRIGHT_ANALYTICS_SPOOL_MAX_HITS: hits }), hits).toThrow(
        /DOCWRIGHT_ANALYTICS_SPOOL_MAX_HITS/,
      );
    const spool = (environment: Record<string, string>) =>
      load({ DOCWRIGHT_ANALYTICS_URL: 'http://h:8123/db', ...environment })().analytics.clickhouse?.spoolMaxHits;
    expect(spool({})).toBe(2_000_000);
    expect(spool({ DOCWRIGHT_ANALYTICS_SPOOL_MAX_HITS: '50000' })).toBe(50_000);
    expect(loadConfig({ DOCWRIGHT_DATA_DIR: '/tmp', DOCWRIGHT_SECRET: 'x'.repeat(40) }).analytics.clickhouse).toBeUndefined();
  });
});

describe('ClickHouse under PostgreSQL', () => {
  test('projects on PostgreSQL, analytics in ClickHouse: ingest, duplicates, reports', async () => {
    const database = createClickHouseDatabase();
    const kit = await createAnalyticsKit('postgres', database.environment);
    try {
      const events = [
        { id: 'a', path: '/a', visitorId: 'v1', userAgent: USER_AGENTS.human },
        { id: 'a', path: '/a', visitorId: 'v1', userAgent: USER_AGENTS.human },
        { path: '/b', visitorId: 'v2', userAgent: USER_AGENTS.ai },
      ];
      expect((await kit.send(events)).json()).toMatchObject({ accepted: 3, duplicates: 1 });
      expect((await kit.get('visitors')).json().totals).toEqual({ human: 1, ai: 1, total: 2 });
      expect(await clickhouseCount(kit.t, 'select count() from analytics_hits')).toBe(2);
      // Nothing analytics went to PostgreSQL but the site and its dictionary.
      expect(await kit.t.services.database.db.selectFrom('analytics_hits').select('site').execute()).toEqual([]);
    } finally {
      await kit.close();
      await database.drop();
    }
  });
});

describe('ClickHouse out of reach', () => {
  test('analytics requests answer 503 database_unavailable; the main database is unaffected', async () => {
    const port = await freePort();
    const kit = await createAnalyticsKit('sqlite', { DOCWRIGHT_ANALYTICS_URL: `http://127.0.0.1:${port}/nowhere` });
    try {
      const sent = await kit.send([{ path: '/a', visitorId: 'v' }]);
      expect([sent.statusCode, sent.json().code]).toEqual([503, 'database_unavailable']);
      expect((await kit.get('visitors')).statusCode).toBe(503);
      // Projects and keys (the main database) are unaffected.
      expect(await kit.t.services.projects.find(kit.projectId)).not.toBeNull();
    } finally {
      await kit.close();
    }
  });
});

describe('ClickHouse migrations', () => {
  test('on a cluster every statement runs ON CLUSTER, on replicated tables, with Distributed tables to read', () => {
    const statements = loadClickHouseMigrations().flatMap((migration) => migration.statements({ database: 'dw', cluster: 'main' }));
    expect(statements.length).toBeGreaterThan(0);
    // Schema statements run on every node; the page-view backfill is data, inserted once through the Distributed tables.
    const [backfill, ...copies] = statements.filter((statement) => statement.startsWith('INSERT'));
    expect(backfill).toMatch(/^INSERT INTO `dw`\.`analytics_page_view_days`\s+SELECT [^]*FROM `dw`\.`analytics_hits` WHERE/);
    // The generations migration copies the three rollups under generation 0, through the Distributed tables too.
    expect(copies.map((statement) => /^INSERT INTO `dw`\.`(\w+)` SELECT [^]*FROM `dw`\.`(\w+)`$/.exec(statement)?.slice(1))).toEqual([
      ['analytics_visitor_gen_days', 'analytics_visitor_days'],
      ['analytics_hit_gen_days', 'analytics_hit_days'],
      ['analytics_page_view_gen_days', 'analytics_page_view_days'],
    ]);
    for (const statement of statements.filter((statement) => !statement.startsWith('INSERT'))) expect(statement).toContain('ON CLUSTER `main`');
    const creates = statements.filter((statement) => statement.startsWith('CREATE TABLE') && !statement.includes('Distributed('));
    for (const statement of creates)
      expect(statement).toMatch(/ENGINE = Replicated\w*MergeTree\('\/clickhouse\/tables\/\{shard\}\/dw\/\w+_local', '\{replica\}'\)/);
    expect(statements.filter((statement) => statement.includes('ENGINE = Distributed(`main`, `dw`, `analytics_hits_local`, intHash64(site))'))).toHaveLength(5);
    for (const statement of statements.filter((statement) => statement.startsWith('CREATE MATERIALIZED VIEW')))
      expect(statement).toMatch(/TO `dw`\.`\w+_local`/);
    // The added columns (taxonomy, generation, re-verification, write times) go on the replicated tables; the Distributed one that
    // reads it is made again after each migration that adds some (ALTER ON CLUSTER of a Distributed table fails where
    // shards use internal_replication), so it has them too. test/analytics/clickhouse/clickhouse-cluster.test.ts runs these.
    const alters = statements.filter((statement) => statement.startsWith('ALTER TABLE'));
    expect(alters).toHaveLength(10);
    for (const statement of alters)
      expect(statement).toMatch(/^ALTER TABLE `dw`\.`(analytics_hits|analytics_visitor_cell_builds)_local` ON CLUSTER `main` ADD COLUMN/);
    expect(alters.filter((statement) => statement.includes('analytics_visitor_cell_builds_local'))).toHaveLength(1);
    const redistributed = statements.filter((statement) => statement.includes('DROP TABLE IF EXISTS `dw`.`analytics_hits` ON CLUSTER `main`'));
    expect(redistributed).toHaveLength(4);
    for (const drop of redistributed)
      expect(statements[statements.indexOf(drop) + 1]).toMatch(
        /^CREATE TABLE IF NOT EXISTS `dw`\.`analytics_hits` ON CLUSTER `main` AS `dw`\.`analytics_hits_local` ENGINE = Distributed/,
      );
  });

  test('on one server: plain engines, no cluster clause, no Distributed tables', () => {
    const statements = loadClickHouseMigrations().flatMap((migration) => migration.statements({ database: 'dw', cluster: undefined }));
    for (const statement of statements) expect(statement).not.toMatch(/ON CLUSTER|Replicated|Distributed|_local/);
    // Each added column (taxonomy, generation, re-verification, write time) is added once, to the one table.
    expect(statements.filter((statement) => statement.startsWith('ALTER TABLE `dw`.`analytics_hits` ADD COLUMN'))).toHaveLength(9);
  });

  test('several processes migrating one new database at once all succeed, and it is migrated once', async () => {
    const database = createClickHouseDatabase();
    const name = new URL(database.environment.DOCWRIGHT_ANALYTICS_URL!).pathname.slice(1);
    const clients = Array.from({ length: 4 }, () => createClient({ url: inject('clickhouseUrl') }));
    try {
      const target = { database: name, cluster: undefined };
      const clock = new ManualClock(Date.UTC(2026, 0, 1));
      const applied = await Promise.all(clients.map((client) => migrateClickHouse(client, target, clock)));
      expect(applied.flat().length).toBeGreaterThanOrEqual(1);
      // Later starts find everything done.
      expect(await migrateClickHouse(clients[0]!, target, clock)).toEqual([]);
      const tables = await (
        await clients[0]!.query({ query: `SELECT name FROM system.tables WHERE database = '${name}' ORDER BY name`, format: 'JSONEachRow' })
      ).json<{ name: string }>();
      expect(tables.map((table) => table.name)).toEqual([
        'analytics_event_ids',
        'analytics_event_ids_mv',
        'analytics_generations',
        'analytics_hit_day_writes',
        'analytics_hit_days',
        'analytics_hit_gen_days',
        'analytics_hit_gen_days_mv',
        'analytics_hits',
        'analytics_page_view_days',
        'analytics_page_view_gen_days',
        'analytics_page_view_gen_days_mv',
        'analytics_visitor_cell_builds',
        'analytics_visitor_cell_starts',
        'analytics_visitor_cells',
        'analytics_visitor_days',
        'analytics_visitor_gen_days',
        'analytics_visitor_gen_days_mv',
        'docwright_migrations',
      ]);
      // The added columns (taxonomy, generation, re-verification, write time), each added once though four processes raced to add them.
      const columns = await (
        await clients[0]!.query({ query: `DESCRIBE TABLE ${name}.analytics_hits`, format: 'JSONEachRow' })
      ).json<{ name: string; type: string; default_expression: string }>();
      expect(columns.slice(-9).map((column) => [column.name, column.type, column.default_expression])).toEqual([
        ['category', 'UInt8', '0'],
        ['verification', 'UInt8', '0'],
        ['read_kind', 'UInt8', '0'],
        ['status', 'Nullable(UInt16)', ''],
        ['referral', 'Nullable(Int32)', ''],
        ['gen', 'UInt32', "CAST(0, 'UInt32')"],
        ['address_block', 'Nullable(String)', ''],
        ['evidence', 'UInt8', '0'],
        ['written', 'Int64', "CAST(0, 'Int64')"],
      ]);
    } finally {
      await Promise.all(clients.map((client) => client.close()));
      await database.drop();
    }
  });
});
