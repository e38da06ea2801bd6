import { join } from 'node:path';
import { createClient } from '@clickhouse/client';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { HitBatch } from '../../../src/analytics/analytics-store.js';
import { ClickHouseAnalyticsStore } from '../../../src/analytics/clickhouse/clickhouse-analytics-store.js';
import { ClickHouseGenerations } from '../../../src/analytics/clickhouse/clickhouse-generations.js';
import { ClickHouseHitWriter } from '../../../src/analytics/clickhouse/clickhouse-hit-writer.js';
import { ClickHouseSpool } from '../../../src/analytics/clickhouse/clickhouse-spool.js';
import { SqliteAnalyticsStore } from '../../../src/analytics/sqlite-analytics-store.js';
import { createAnalyticsKit, DAY, USER_AGENTS, type AnalyticsKit } from '../../helpers/analytics-kit.js';
import { createTestProject } from '../../helpers/test-app.js';
import { clickhouseCount } from '../../helpers/clickhouse-rows.js';

/**
 * The ClickHouse ingest spool across failures (docs/analytics.md, "ClickHouse"): a drain
 * that dies after ClickHouse took its rows lets the next drain write them again, which the
 * reports count once; batches a stopped process left in its spool file are written by the
 * next process that opens it, without being asked; hits of a project deleted meanwhile are
 * dropped.
 */
describe('ClickHouse ingest spool: recovery', () => {
  let kit: AnalyticsKit;
  beforeEach(async () => {
    kit = await createAnalyticsKit('clickhouse');
  });
  afterEach(async () => {
    await kit.close();
  });

  test('rows written again by a drain after one that died count once in every report', async () => {
    const yesterday = (Math.floor(kit.t.clock.now() / DAY) - 1) * DAY;
    // v0–v2 read with a browser, v3 with an assistant; odd events on /a, even ones on /b; half carry an id.
    const events = Array.from({ length: 12 }, (_, index) => ({
      ...(index < 6 ? { id: `event-${index}` } : {}),
      path: index % 2 === 1 ? '/a' : '/b',
      visitorId: `v${index % 4}`,
      userAgent: index % 4 === 3 ? USER_AGENTS.ai : USER_AGENTS.human,
      timestamp: new Date(yesterday + index * 60_000).toISOString(),
    }));
    expect((await kit.send(events)).json()).toMatchObject({ accepted: 12 });

    // A drain of another process takes the batch, writes it into ClickHouse, and dies before
    // deleting it: its lease runs out, and the app's next read writes the same rows again.
    const settings = kit.t.config.analytics.clickhouse!;
    const client = createClient({ url: settings.url });
    const spool = new ClickHouseSpool(settings.spoolFile!);
    try {
      const target = { database: settings.database, cluster: undefined };
      const writer = new ClickHouseHitWriter(
        client,
        target,
        new ClickHouseGenerations(client, target, () => kit.t.clock.now()),
        spool,
        () => undefined,
        kit.t.clock,
      );
      const records = spool.take(Number.MAX_SAFE_INTEGER, Date.now(), 1);
      expect(records.reduce((sum, record) => sum + record.hits, 0)).toBe(12);
      await writer.writeSpooled(records, (_record, error) => {
        throw error;
      });
      await new Promise((resolve) => setTimeout(resolve, 5));
    } finally {
      spool.close();
      await client.close();
    }

    const range = { dateFrom: new Date(yesterday).toISOString().slice(0, 10) };
    expect((await kit.get('visitors', range)).json()).toEqual({
      totals: { human: 3, ai: 1, total: 4 },
      visitors: [
        { path: '/a', human: 1, ai: 1, total: 2 },
        { path: '/b', human: 2, ai: 0, total: 2 },
      ],
      hasMore: false,
    });
    expect((await kit.get('views', range)).json()).toEqual({
      totals: { human: 9, ai: 3, total: 12 },
      views: [
        { path: '/a', human: 3, ai: 3, total: 6 },
        { path: '/b', human: 6, ai: 0, total: 6 },
      ],
      hasMore: false,
    });
    // Both drains' rows are stored: the reports above counted each event once among 24 rows.
    expect(await clickhouseCount(kit.t, 'select count() from analytics_hits')).toBe(24);
    // The duplicate check still knows every id, from ClickHouse now.
    expect((await kit.send(events.slice(0, 6))).json()).toMatchObject({ accepted: 6, duplicates: 6 });
  });

  test('batches a stopped process left in its spool are written by the next one to open the file, unasked', async () => {
    const file = join(kit.t.config.dataDir, 'left-behind.sqlite');
    const settings = kit.t.config.analytics.clickhouse!;
    const primary = new SqliteAnalyticsStore(kit.t.services.database);
    const site = await primary.ensureSite(kit.projectId);
    // A process whose drains never start on their own: what it accepts stays spooled.
    const stalled = new ClickHouseAnalyticsStore(primary, settings, kit.t.clock, {
      spoolFile: file,
      drainPolicy: { minHits: Number.MAX_SAFE_INTEGER, maxDelayMs: Number.MAX_SAFE_INTEGER, maxHits: 100_000, leaseMs: 60_000, retryMs: 100 },
    });
    const count = async () => clickhouseCount(kit.t.config, `select count() from analytics_hits where site = ${site}`);
    try {
      expect(await stalled.insertHits(batchOf(site, 30, kit.t.clock.now() - DAY))).toEqual({ stored: 30, duplicates: 0 });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(await count()).toBe(0);

      const next = new ClickHouseAnalyticsStore(primary, settings, kit.t.clock, { spoolFile: file });
      try {
        await next.ready();
        await expect.poll(count, { timeout: 5_000, interval: 100 }).toBe(30);
      } finally {
        await next.close();
      }
    } finally {
      await stalled.close();
    }
    expect(await count()).toBe(30);
  });

  test('hits of a project deleted while they waited in another spool are dropped, not written back', async () => {
    const settings = kit.t.config.analytics.clickhouse!;
    const primary = new SqliteAnalyticsStore(kit.t.services.database);
    const other = (await createTestProject(kit.t.services, { name: 'Kept' })).id;
    const [doomedSite, keptSite] = [await primary.ensureSite(kit.projectId), await primary.ensureSite(other)];
    // Another machine's process: its spool is its own file, which this deletion cannot drain.
    const file = join(kit.t.config.dataDir, 'other-machine.sqlite');
    const stalled = new ClickHouseAnalyticsStore(primary, settings, kit.t.clock, {
      spoolFile: file,
      drainPolicy: { minHits: Number.MAX_SAFE_INTEGER, maxDelayMs: Number.MAX_SAFE_INTEGER, maxHits: 100_000, leaseMs: 60_000, retryMs: 100 },
    });
    const count = async (site: number) => clickhouseCount(kit.t.config, `select count() from analytics_hits where site = ${site}`);
    try {
      await stalled.insertHits(batchOf(doomedSite, 20, kit.t.clock.now() - DAY));
      await stalled.insertHits(batchOf(keptSite, 10, kit.t.clock.now() - DAY));
      // What deleting the project runs first: the app's analytics deletion (it drains the app's spool, not that one).
      expect(kit.t.services.projectDataRemovers.length).toBeGreaterThan(0);
      for (const remove of kit.t.services.projectDataRemovers) await remove(kit.projectId);
      expect(await primary.siteOf(kit.projectId)).toBeNull();
      await stalled.flush();
      expect(await count(keptSite)).toBe(10);
      expect(await count(doomedSite)).toBe(0);
    } finally {
      await stalled.close();
    }
  });
});

/** `count` human hits of distinct visitors on page id 1, one a second from `from`, without event ids. */
function batchOf(site: number, count: number, from: number): HitBatch {
  const rows = Array.from({ length: count }, (_, index) => index);
  return {
    site,
    count,
    at: Float64Array.from(rows, (index) => from + index * 1_000),
    page: new Int32Array(count).fill(1),
    visitor: BigInt64Array.from(rows, (index) => BigInt(index + 1)),
    classCode: new Uint8Array(count).fill(1),
    agent: new Int32Array(count),
    userAgent: new Int32Array(count),
    referrer: rows.map(() => null),
    markdownAccept: new Uint8Array(count),
    classifierVersion: 1,
    eventId: rows.map(() => null),
    category: new Uint8Array(count).fill(8),
    verification: new Uint8Array(count),
    readKind: new Uint8Array(count),
    status: new Uint16Array(count),
    referral: new Int32Array(count),
  };
}
