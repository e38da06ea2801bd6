import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { AnalyticsStore } from '../../src/analytics/analytics-store.js';
import { ReclassificationJob } from '../../src/analytics/reclassification/reclassification-job.js';
import { DAY } from '../helpers/analytics-kit.js';
import { bruteForceClasses, bruteForceVisitors } from '../helpers/analytics-oracle.js';
import { createTestApp, createTestProject, type TestApp } from '../helpers/test-app.js';
import {
  currentClassifier,
  OLD_TABLE,
  oldClassifier,
  RECLASSIFIED_USER_AGENTS,
  storeClassifiedWith,
  type TableHit,
} from '../helpers/reclassification-tables.js';
import { answeringClickHouseHits, openReclassificationStore, type ReclassificationStore } from '../helpers/reclassification-store.js';
import { ANALYTICS_BACKENDS } from '../helpers/test-database.js';

const PATHS = ['/', '/guide', '/guide.md', '/llms.txt'];
const REFERRERS = [null, 'https://chatgpt.com/', 'https://example.com/'];
const DAYS = 5;

const hitArbitrary = fc.record({
  path: fc.constantFrom(...PATHS),
  visitor: fc.integer({ min: 0, max: 5 }),
  userAgent: fc.constantFrom(...RECLASSIFIED_USER_AGENTS),
  referrer: fc.constantFrom(...REFERRERS),
  markdown: fc.boolean(),
  day: fc.integer({ min: 0, max: DAYS - 1 }),
  ms: fc.integer({ min: 0, max: DAY - 1 }),
});

type GeneratedHit = typeof hitArbitrary extends fc.Arbitrary<infer Generated> ? Generated : never;

const scenarioArbitrary = fc.record({
  before: fc.array(hitArbitrary, { maxLength: 40 }),
  after: fc.array(hitArbitrary, { maxLength: 8 }),
  /** Batches of old hits, folded after each or not; the rebuild then meets folded and unfolded hits alike. */
  batches: fc.integer({ min: 1, max: 4 }),
  foldBetween: fc.boolean(),
  foldAfterRebuild: fc.constantFrom('none', 'step', 'all'),
});

interface StoredRow {
  at: number;
  path: string;
  class: number;
  agent: string | null;
  category: number;
  verification: number;
  read_kind: number;
  referral: string | null;
}

describe.each(ANALYTICS_BACKENDS)('reclassified history equals history ingested fresh [%s]', (dialect) => {
  let t: TestApp;
  let store: AnalyticsStore;
  let start: number;
  let opened: ReclassificationStore;
  beforeAll(async () => {
    t = await createTestApp(dialect);
    opened = await openReclassificationStore(t);
    store = opened.store;
    start = (Math.floor(t.clock.now() / DAY) - DAYS) * DAY;
  });
  afterAll(async () => {
    await opened.close();
    await t.close();
  });

  type Hit = TableHit;

  const ingest = (projectId: string, hits: readonly Hit[], table: 'old' | 'current'): Promise<void> =>
    storeClassifiedWith(store, t.clock.now(), projectId, hits, table === 'old' ? OLD_TABLE : 'current');

  /** The hits from the first day on which the new table gives some hit another class or agent than the old one. */
  function expectedRefolded(hits: readonly Hit[]): number {
    const moved = (hit: Hit): boolean => {
      const input = { userAgent: hit.userAgent, path: hit.path, accept: hit.markdown ? 'text/markdown' : null };
      const [old, now] = [oldClassifier.classify(input), currentClassifier.classify(input)];
      return old.class !== now.class || old.agent !== now.agent;
    };
    const firstDay = Math.min(...hits.filter(moved).map((hit) => Math.floor(hit.at / DAY)));
    return hits.filter((hit) => Math.floor(hit.at / DAY) >= firstDay).length;
  }

  async function storedRows(projectId: string): Promise<StoredRow[]> {
    const site = (await store.siteOf(projectId))!;
    if (dialect === 'clickhouse') return clickHouseRows(site);
    const rows = await store.select<StoredRow>(
      `select h.at, p.name as path, h.class, a.name as agent, h.category, h.verification, h.read_kind, r.name as referral
       from analytics_hits h join analytics_dimensions p on p.id = h.page
       left join analytics_dimensions a on a.id = h.agent left join analytics_dimensions r on r.id = h.referral
       where h.site = ? order by h.at, p.name, h.class, a.name`,
      [site],
    );
    return rows.map((row) => ({ ...row, at: Number(row.at), class: Number(row.class), category: Number(row.category) }));
  }

  /** The stored hits of the site on ClickHouse (of the generation answering for each day), once each, with their names from the primary database. */
  async function clickHouseRows(site: number): Promise<StoredRow[]> {
    const { rows, nameOf } = await answeringClickHouseHits<{
      at: string;
      page: number;
      class: number;
      agent: number;
      category: number;
      verification: number;
      read_kind: number;
      referral: number | null;
    }>(t, opened, site, ['at', 'page', 'class', 'agent', 'category', 'verification', 'read_kind', 'referral']);
    const result = rows.map((row) => ({
      at: Number(row.at),
      path: nameOf(row.page)!,
      class: Number(row.class),
      agent: nameOf(row.agent),
      category: Number(row.category),
      verification: Number(row.verification),
      read_kind: Number(row.read_kind),
      referral: nameOf(row.referral),
    }));
    const key = (row: StoredRow) =>
      JSON.stringify([String(row.at).padStart(16, '0'), row.path, row.class, row.agent, row.category, row.verification, row.read_kind, row.referral]);
    return result.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  }

  async function report(projectId: string, name: string, query: Record<string, string> = {}) {
    const key = (await t.services.keys.create({ projectId, scope: 'admin' })).key;
    const response = await t.app.inject({ method: 'GET', url: `/v1/analytics/${projectId}/${name}`, headers: { authorization: `Bearer ${key}` }, query });
    expect(response.statusCode).toBe(200);
    return response.json<Record<string, unknown>>();
  }

  test('after a table change, the job rewrites past hits so every report and every stored hit is as if ingested with the new table', async () => {
    await fc.assert(
      fc.asyncProperty(scenarioArbitrary, async (scenario) => {
        const toHit = (hit: GeneratedHit): Hit => ({
          ...hit,
          at: start + hit.day * DAY + hit.ms,
          visitor: `v${hit.visitor}`,
          accept: hit.markdown ? 'text/markdown' : null,
        });
        const before = scenario.before.map(toHit);
        const after = scenario.after.map(toHit);
        const reclassified = (await createTestProject(t.services)).id;
        const fresh = (await createTestProject(t.services)).id;

        const size = Math.ceil(before.length / scenario.batches) || 1;
        for (let index = 0; index < before.length; index += size) {
          await ingest(reclassified, before.slice(index, index + size), 'old');
          if (scenario.foldBetween) await store.fold(5_000);
        }
        await ingest(fresh, before, 'current');

        const progress = await new ReclassificationJob(store).run();
        expect(progress.state).toBe('done');
        // Only this scenario's old hits were left: earlier scenarios' sites are done.
        expect(progress.hitsRewritten).toBe(before.length);
        // The SQL backends count again only the days from the first one where a hit's class
        // or agent changed; the hits before it are relabelled in place. ClickHouse copies all.
        expect(progress.hitsRefolded).toBe(dialect === 'clickhouse' ? before.length : expectedRefolded(before));
        // Idempotent: a second run finds nothing left.
        expect((await new ReclassificationJob(store).run()).hitsRewritten).toBe(0);
        if (scenario.foldAfterRebuild === 'all') await store.fold(5_000);
        else if (scenario.foldAfterRebuild === 'step') await store.fold(3, () => Promise.resolve(false));
        await ingest(reclassified, after, 'current');
        await ingest(fresh, after, 'current');

        expect(await storedRows(reclassified)).toEqual(await storedRows(fresh));
        const all = [...before, ...after];
        const query = { dateFrom: new Date(start).toISOString().slice(0, 10), dateTo: new Date(start + DAYS * DAY).toISOString().slice(0, 10) };
        const visitors = await report(reclassified, 'visitors', { ...query, limit: '250' });
        expect(visitors.totals).toEqual(bruteForceVisitors(all, null, null).totals);
        expect(visitors).toEqual(await report(fresh, 'visitors', { ...query, limit: '250' }));
        const traffic = await report(reclassified, 'traffic', query);
        expect(traffic.classes).toEqual(bruteForceClasses(all, null, null));
        expect(traffic).toEqual(await report(fresh, 'traffic', query));
        expect(await report(reclassified, 'visitors/daily', query)).toEqual(await report(fresh, 'visitors/daily', query));
        // Views and the reports over the taxonomy columns (reports helper).
        for (const name of ['views', 'agents', 'pages', 'agent-errors']) {
          expect(await report(reclassified, name, { ...query, limit: '250' }), name).toEqual(await report(fresh, name, { ...query, limit: '250' }));
        }
      }),
      { numRuns: dialect === 'sqlite' ? 60 : dialect === 'postgres' ? 30 : 8 },
    );
  }, 300_000);

  test('stopped between sites, a later run resumes with the sites left; progress is reported per site', async () => {
    const hit: Hit = { at: start + DAY, path: '/guide', visitor: 'v1', userAgent: RECLASSIFIED_USER_AGENTS[5]!, referrer: null, markdown: false };
    const projects = [(await createTestProject(t.services)).id, (await createTestProject(t.services)).id];
    for (const projectId of projects) await ingest(projectId, [hit, { ...hit, visitor: 'v2' }], 'old');
    const stop = new AbortController();
    const seen: number[] = [];
    const first = await new ReclassificationJob(store, {
      signal: stop.signal,
      onProgress: (progress) => {
        seen.push(progress.sitesDone);
        if (progress.sitesDone === 1) stop.abort();
      },
    }).run();
    expect(first).toMatchObject({ state: 'idle', sites: 2, sitesDone: 1, hitsRewritten: 2 });
    expect(seen).toEqual([0, 1, 1]);
    const second = await new ReclassificationJob(store).run();
    expect(second).toMatchObject({ state: 'done', sites: 1, sitesDone: 1, hitsRewritten: 2 });
    for (const projectId of projects) expect((await storedRows(projectId)).map((row) => row.agent)).toEqual(['Google-Agent', 'Google-Agent']);
  });
});
