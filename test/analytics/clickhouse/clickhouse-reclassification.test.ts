import { createClient, type ClickHouseClient } from '@clickhouse/client';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import rawTable from '../../../src/analytics/classification/ai-agents.json' with { type: 'json' };
import type { AnalyticsStore } from '../../../src/analytics/analytics-store.js';
import { parseAiAgentTable } from '../../../src/analytics/classification/ai-agent-table.js';
import { ClickHouseAnalyticsStore } from '../../../src/analytics/clickhouse/clickhouse-analytics-store.js';
import { CLAIM_STALE_MS, ClickHouseGenerations, GENERATION_SWITCHED, SUPERSEDED_GRACE_MS } from '../../../src/analytics/clickhouse/clickhouse-generations.js';
import { localTable } from '../../../src/analytics/clickhouse/clickhouse-migrations.js';
import { waitForMutations } from '../../../src/analytics/clickhouse/clickhouse-mutations.js';
import { ClickHouseReclassifier } from '../../../src/analytics/clickhouse/clickhouse-reclassifier.js';
import { ReclassificationJob } from '../../../src/analytics/reclassification/reclassification-job.js';
import { SqliteAnalyticsStore } from '../../../src/analytics/sqlite-analytics-store.js';
import { DAY, USER_AGENTS } from '../../helpers/analytics-kit.js';
import { clickhouseRows } from '../../helpers/clickhouse-rows.js';
import { storeClassifiedWith, type TableHit } from '../../helpers/reclassification-tables.js';
import { createTestApp, createTestProject, type TestApp } from '../../helpers/test-app.js';

/** Hits were once classified without ChatGPT-User and with DuckAssistBot as a search crawler. */
const OLD_TABLE = parseAiAgentTable({
  version: '2026-01-01',
  entries: rawTable.entries
    .filter((entry) => entry.token !== 'ChatGPT-User')
    .map((entry) => (entry.token === 'DuckAssistBot' ? { ...entry, class: 'ai-search', category: 'ai-search' } : entry)),
});
const AGENTS = [USER_AGENTS.human, USER_AGENTS.ai, USER_AGENTS.aiTraining, 'DuckAssistBot/1.2; (+http://duckduckgo.com/duckassistbot.html)'];

type Hit = TableHit;

describe('reclassification on ClickHouse: one generation answers at a time', () => {
  let t: TestApp;
  let store: ClickHouseAnalyticsStore;
  let client: ClickHouseClient;
  let start: number;

  beforeAll(async () => {
    t = await createTestApp('clickhouse');
    store = new ClickHouseAnalyticsStore(new SqliteAnalyticsStore(t.services.database), t.config.analytics.clickhouse!, t.clock);
    await store.ready();
    client = createClient({ url: t.config.analytics.clickhouse!.url });
    start = (Math.floor(t.clock.now() / DAY) - 5) * DAY;
  });
  afterAll(async () => {
    await client.close();
    await store.close();
    await t.close();
  });

  const hits = (count: number, salt: string): Hit[] =>
    Array.from({ length: count }, (_, index) => ({
      at: start + (index % 5) * DAY + index * 1_000,
      path: `/page/${index % 7}`,
      visitor: `${salt}${index % 23}`,
      userAgent: AGENTS[index % AGENTS.length]!,
    }));

  const ingest = (projectId: string, batch: readonly Hit[], table: 'old' | 'current'): Promise<void> =>
    storeClassifiedWith(store, t.clock.now(), projectId, batch, table === 'old' ? OLD_TABLE : 'current');

  async function answers(projectId: string) {
    const key = (await t.services.keys.create({ projectId, scope: 'admin' })).key;
    const query = { dateFrom: new Date(start).toISOString().slice(0, 10), dateTo: new Date(start + 5 * DAY).toISOString().slice(0, 10) };
    const get = async (name: string, extra: Record<string, string> = {}) =>
      (
        await t.app.inject({
          method: 'GET',
          url: `/v1/analytics/${projectId}/${name}`,
          headers: { authorization: `Bearer ${key}` },
          query: { ...query, ...extra },
        })
      ).json<unknown>();
    // A date-time bound too, so the raw hits of cut-off days are read as well as the rollups.
    const cut = { dateFrom: new Date(start + DAY / 2).toISOString(), dateTo: query.dateTo };
    return {
      visitors: await get('visitors', { limit: '250' }),
      traffic: await get('traffic'),
      cut: await get('views', { ...cut, limit: '250' }),
      agents: await get('agents'),
    };
  }

  const generationsOf = (site: number) =>
    new ClickHouseGenerations(client, { database: t.config.analytics.clickhouse!.database, cluster: undefined }, () => t.clock.now()).of(site);

  /** Stored rows of the project and distinct hits among them, of the answering generations only or of all. */
  const rowsOf = async (projectId: string, which: 'answering' | 'all' = 'answering') => {
    const site = (await store.siteOf(projectId))!;
    const live = which === 'all' ? '1' : (await generationsOf(site)).predicate();
    return clickhouseRows<{ n: string; u: string }>(
      t,
      `SELECT count() AS n, uniqExact(event_id, nonce) AS u FROM analytics_hits WHERE site = ${site} AND ${live}`,
    );
  };

  /** A project with `hits` stored under the old table, and one with the same hits under the current table. */
  async function oldAndFresh(stored: readonly Hit[]) {
    const projectId = (await createTestProject(t.services)).id;
    const fresh = (await createTestProject(t.services)).id;
    await ingest(projectId, stored, 'old');
    await ingest(fresh, stored, 'current');
    return { projectId, fresh };
  }

  test('while a reclassification runs, every answer is the one before or the one after, never a mix', async () => {
    const { projectId, fresh } = await oldAndFresh(hits(400, 'a'));
    const before = await answers(projectId);
    const after = await answers(fresh);
    expect(after).not.toEqual(before);
    let done = false;
    const run = new ReclassificationJob(store).run().finally(() => (done = true));
    // Each report reads one view of the generations (several queries each): every answer is wholly before or after.
    const mixed: unknown[] = [];
    let samples = 0;
    while (!done) {
      const now = await answers(projectId);
      for (const name of Object.keys(now) as Array<keyof typeof now>) {
        const answer = JSON.stringify(now[name]);
        if (answer !== JSON.stringify(before[name]) && answer !== JSON.stringify(after[name])) mixed.push({ name, answer });
      }
      samples++;
    }
    expect((await run).hitsRewritten).toBe(400);
    expect(samples).toBeGreaterThan(0);
    expect(mixed).toEqual([]);
    expect(await answers(projectId)).toEqual(after);
    expect(await rowsOf(projectId)).toEqual([{ n: '400', u: '400' }]);
    // The superseded rows stay until the prune after the grace period (a report may still be reading them) …
    expect(await rowsOf(projectId, 'all')).toEqual([{ n: '800', u: '400' }]);
    await store.prune(0);
    expect(await rowsOf(projectId, 'all')).toEqual([{ n: '800', u: '400' }]);
    // … then they are deleted, and every answer stays.
    t.clock.advance(SUPERSEDED_GRACE_MS);
    await store.prune(0);
    expect(await rowsOf(projectId, 'all')).toEqual([{ n: '400', u: '400' }]);
    expect(await answers(projectId)).toEqual(after);
  });

  test('hits written while it runs are counted once, in the generation that answers', async () => {
    const old = hits(300, 'b');
    const late = hits(60, 'c').map((hit, index) => ({ ...hit, at: hit.at + 500 + index }));
    const { projectId, fresh } = await oldAndFresh(old);
    const run = new ReclassificationJob(store).run();
    for (let index = 0; index < late.length; index += 6) await ingest(projectId, late.slice(index, index + 6), 'current');
    await run;
    await ingest(fresh, late, 'current');
    expect(await answers(projectId)).toEqual(await answers(fresh));
    // Every hit is in the answering generation; a write that raced the copy may be there twice, counted once (unique event id and nonce).
    const [live] = await rowsOf(projectId);
    expect(Number(live!.u)).toBe(old.length + late.length);
    expect(Number(live!.n)).toBeGreaterThanOrEqual(old.length + late.length);
  });

  test('a run that died after copying is resumed by a later one, into the same generation, once its claim is stale', async () => {
    const { projectId, fresh } = await oldAndFresh(hits(200, 'd'));
    const before = await answers(projectId);
    const target = { database: t.config.analytics.clickhouse!.database, cluster: undefined };
    // Generations that fail to record the switch: the run dies after its copy.
    class Dying extends ClickHouseGenerations {
      override async record(site: number, generation: { gen: number; fromDay: number; version: number }, state: number, owner: string, at?: number) {
        if (state === GENERATION_SWITCHED) throw new Error('killed');
        await super.record(site, generation, state, owner, at);
      }
    }
    const mutate = async (table: string, where: string) => {
      await client.command({ query: `ALTER TABLE ${localTable(target, table)} DELETE WHERE ${where}` });
      await waitForMutations(client, target, table);
    };
    const dying = new ClickHouseReclassifier(store, client, target, new Dying(client, target, () => t.clock.now()), mutate);
    const dyingStore = Object.assign(Object.create(store) as AnalyticsStore, { reclassifier: dying });
    await expect(new ReclassificationJob(dyingStore).run()).rejects.toThrow('killed');
    expect(await answers(projectId)).toEqual(before);
    // The claim is live: another run leaves the site alone.
    expect((await new ReclassificationJob(store).run()).hitsRewritten).toBe(0);
    expect(await answers(projectId)).toEqual(before);

    t.clock.advance(CLAIM_STALE_MS + 1);
    // Resumed: everything was copied already, so nothing is copied twice.
    expect((await new ReclassificationJob(store).run()).hitsRewritten).toBe(0);
    expect(await answers(projectId)).toEqual(await answers(fresh));
    expect(await rowsOf(projectId)).toEqual([{ n: '200', u: '200' }]);
    const site = (await store.siteOf(projectId))!;
    const generations = await clickhouseRows<{ gen: number; states: number[] }>(
      t,
      `SELECT gen, groupUniqArray(state) AS states FROM analytics_generations WHERE site = ${site} GROUP BY gen`,
    );
    expect(generations.map((row) => [...row.states].sort())).toEqual([[1, 2]]);
  });
});
