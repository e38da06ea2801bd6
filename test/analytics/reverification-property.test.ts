import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { AnalyticsStore } from '../../src/analytics/analytics-store.js';
import { HitEncoder } from '../../src/analytics/hit-encoder.js';
import { prepareBatch } from '../../src/analytics/prepare-batch.js';
import { ReclassificationJob } from '../../src/analytics/reclassification/reclassification-job.js';
import { EvidenceVerifier } from '../../src/analytics/verification/evidence-verifier.js';
import { buildRangeCatalog, type RangeCatalog, type RangeFile } from '../../src/analytics/verification/range-catalog.js';
import { VisitorIdentity } from '../../src/analytics/visitor-identity.js';
import { DAY, USER_AGENTS } from '../helpers/analytics-kit.js';
import { bruteForceVisitors } from '../helpers/analytics-oracle.js';
import { answeringClickHouseHits, openReclassificationStore, type ReclassificationStore } from '../helpers/reclassification-store.js';
import { createTestApp, createTestProject, TEST_SECRET, type TestApp } from '../helpers/test-app.js';
import { ANALYTICS_BACKENDS } from '../helpers/test-database.js';

/**
 * Ranges A at ingest, then ranges B and the reclassification job: every stored label and
 * every report equals ingesting the same hits fresh with B (docs/classification.md,
 * "Re-verification when the ranges change"). The lists change by blocks of /24 and wider,
 * and keep one /28 in both: a block no list cuts finer than the stored prefix.
 */
const COARSE_BLOCKS = ['10.0.0.0/16', '10.1.0.0/24', '10.1.1.0/24', '10.2.0.0/20', '2001:db8::/32', '2001:db8:1::/48'];
const FINE_BLOCK = '10.9.0.16/28';
const ADDRESSES = ['10.0.5.7', '10.1.0.9', '10.1.1.200', '10.2.3.4', '10.9.0.20', '10.9.0.40', '192.0.2.1', '2001:db8::1', '2001:db8:1::9', '2001:db8:2::1'];
const USER_AGENT_CHOICES = [USER_AGENTS.human, USER_AGENTS.ai, USER_AGENTS.aiTraining, USER_AGENTS.aiSearch, 'curl/8.4.0'];
const DAYS = 3;

const listArbitrary = fc.record({ blocks: fc.subarray(COARSE_BLOCKS), complete: fc.boolean() });
const rangesArbitrary = fc.record({ gptbot: listArbitrary, chatgpt: listArbitrary });
const hitArbitrary = fc.record({
  userAgent: fc.constantFrom(...USER_AGENT_CHOICES),
  ip: fc.constantFrom(...ADDRESSES),
  visitor: fc.integer({ min: 0, max: 4 }),
  path: fc.constantFrom('/', '/guide', '/guide.md'),
  day: fc.integer({ min: 0, max: DAYS - 1 }),
  ms: fc.integer({ min: 0, max: DAY - 1 }),
});

type Ranges = typeof rangesArbitrary extends fc.Arbitrary<infer R> ? R : never;

/** `fine`: both lists hold FINE_BLOCK (in A and B alike; a fine block that appears only in B is the conservative case below). */
function catalogOf(ranges: Ranges, fine: boolean): RangeCatalog {
  const set = (id: string, agent: string, list: Ranges['gptbot']): RangeFile['sets'][number] => ({
    id,
    operator: 'OpenAI',
    agents: [agent],
    url: `https://example.com/${id}.json`,
    format: 'prefixes-json',
    fetchedAt: '2026-11-24T00:00:00.000Z',
    complete: list.complete,
    prefixes: [...list.blocks, ...(fine ? [FINE_BLOCK] : [])],
  });
  return buildRangeCatalog({ version: 'test', sets: [set('openai-gptbot', 'GPTBot', ranges.gptbot), set('openai-chatgpt-user', 'ChatGPT', ranges.chatgpt)] });
}

interface StoredRow {
  at: number;
  path: string;
  class: number;
  agent: string | null;
  category: number;
  verification: number;
  /** What decided the label (EVIDENCE_CODES): the same whichever ranges were current, so a copy that dropped it shows. */
  evidence: number;
}

describe.each(ANALYTICS_BACKENDS)('re-verified history equals history ingested fresh [%s]', (dialect) => {
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

  const identity = new VisitorIdentity(TEST_SECRET);
  type Hit = typeof hitArbitrary extends fc.Arbitrary<infer H> ? H : never;

  async function ingest(projectId: string, hits: readonly Hit[], ranges: RangeCatalog): Promise<void> {
    const site = await store.ensureSite(projectId);
    const verifier = new EvidenceVerifier({
      ranges,
      keys: {
        directory: () => {
          throw new Error('this test signs nothing');
        },
      },
      rdnsVerdict: () => undefined,
      nonces: null,
      clock: t.clock,
    });
    const events = hits.map((hit) => ({
      timestamp: start + hit.day * DAY + hit.ms,
      path: hit.path,
      visitorId: `v${hit.visitor}`,
      userAgent: hit.userAgent,
      ip: hit.ip,
    }));
    const now = t.clock.now();
    const prepared = prepareBatch(
      events,
      { projectId, rotateDaily: false, window: { receivedAt: now, latest: now + 300_000, earliest: 0 } },
      identity,
      verifier,
    );
    if (!prepared.ok) throw new Error(prepared.message);
    expect(prepared.rejected).toEqual([]);
    await store.insertHits(await new HitEncoder(store).encode(site, prepared.columns));
  }

  async function storedRows(projectId: string): Promise<StoredRow[]> {
    const site = (await store.siteOf(projectId))!;
    const rows = opened.generations === undefined ? await sqlRows(site) : await clickHouseRows(site);
    for (const row of rows) {
      // A person's address is never kept; an agent's only as a block.
      if (Number(row.class) === 1) expect(row.address_block).toBeNull();
      else if (row.address_block !== null) expect(row.address_block).toMatch(/\/(2[4-8]|4[89]|5\d|6[0-4])$/);
    }
    return rows.map((row) => ({
      at: Number(row.at),
      path: row.path,
      class: Number(row.class),
      agent: row.agent,
      category: Number(row.category),
      verification: Number(row.verification),
      evidence: Number(row.evidence),
    }));
  }

  type RowWithBlock = StoredRow & { address_block: string | null };

  async function sqlRows(site: number): Promise<RowWithBlock[]> {
    return store.select<RowWithBlock>(
      `select h.at, p.name as path, h.class, a.name as agent, h.category, h.verification, h.evidence, h.address_block
       from analytics_hits h join analytics_dimensions p on p.id = h.page left join analytics_dimensions a on a.id = h.agent
       where h.site = ? order by h.at, p.name, h.class, a.name`,
      [site],
    );
  }

  /** The hits of the generation answering for each day, once each (the block and evidence survive the copy), named from the primary database. */
  async function clickHouseRows(site: number): Promise<RowWithBlock[]> {
    const { rows, nameOf } = await answeringClickHouseHits<{
      at: string;
      page: number;
      class: number;
      agent: number;
      category: number;
      verification: number;
      address_block: string | null;
      evidence: number;
    }>(t, opened, site, ['at', 'page', 'class', 'agent', 'category', 'verification', 'address_block', 'evidence']);
    const result = rows.map((row) => {
      // Every non-human hit the verifier checked by address keeps its block through every generation copy.
      if (Number(row.class) !== 1 && Number(row.evidence) !== 0 && Number(row.evidence) !== 2) expect(row.address_block).not.toBeNull();
      return {
        at: Number(row.at),
        path: nameOf(row.page)!,
        class: Number(row.class),
        agent: nameOf(row.agent),
        category: Number(row.category),
        verification: Number(row.verification),
        evidence: Number(row.evidence),
        address_block: row.address_block,
      };
    });
    const key = (row: RowWithBlock) =>
      JSON.stringify([String(row.at).padStart(16, '0'), row.path, row.class, row.agent, row.category, row.verification, row.evidence]);
    return result.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
  }

  async function report(projectId: string, name: string, query: Record<string, string>) {
    const key = (await t.services.keys.create({ projectId, scope: 'admin' })).key;
    const response = await t.app.inject({ method: 'GET', url: `/v1/analytics/${projectId}/${name}`, headers: { authorization: `Bearer ${key}` }, query });
    expect(response.statusCode).toBe(200);
    return response.json<Record<string, unknown>>();
  }

  test('after the ranges change, the job re-verifies past hits: every label and report is as if ingested with the new ranges', async () => {
    await fc.assert(
      fc.asyncProperty(rangesArbitrary, rangesArbitrary, fc.boolean(), fc.array(hitArbitrary, { minLength: 1, maxLength: 30 }), async (a, b, fine, hits) => {
        const rangesA = catalogOf(a, fine);
        const rangesB = catalogOf(b, fine);
        const reverified = (await createTestProject(t.services)).id;
        const fresh = (await createTestProject(t.services)).id;
        await ingest(reverified, hits, rangesA);
        await ingest(fresh, hits, rangesB);
        if (hits.length % 2 === 0) await store.fold(5_000);

        const progress = await new ReclassificationJob(store, { ranges: rangesB }).run();
        expect(progress).toMatchObject({ state: 'done', rangesVersion: rangesB.fingerprint });
        // Idempotent: a second run changes nothing (it may find other scenarios' sites that the
        // app's own maintenance job, which verifies nothing, brought to the table alone).
        await new ReclassificationJob(store, { ranges: rangesB }).run();

        expect(await storedRows(reverified)).toEqual(await storedRows(fresh));
        const query = { dateFrom: new Date(start).toISOString().slice(0, 10), dateTo: new Date(start + DAYS * DAY).toISOString().slice(0, 10) };
        for (const name of ['visitors', 'views', 'traffic', 'agents', 'pages']) {
          expect(await report(reverified, name, { ...query, ...(name === 'traffic' ? {} : { limit: '250' }) }), name).toEqual(
            await report(fresh, name, { ...query, ...(name === 'traffic' ? {} : { limit: '250' }) }),
          );
        }
        // People are not touched by verification: their count is the oracle's.
        const visitors = await report(reverified, 'visitors', { ...query, limit: '250' });
        expect((visitors.totals as { human: number }).human).toBe(
          bruteForceVisitors(
            hits.map((hit) => ({ at: start + hit.day * DAY + hit.ms, path: hit.path, visitor: `v${hit.visitor}`, userAgent: hit.userAgent, accept: null })),
            null,
            null,
          ).totals.human,
        );
      }),
      { numRuns: dialect === 'sqlite' ? 40 : dialect === 'postgres' ? 15 : 8 },
    );
  }, 300_000);

  test('a refresh that cuts a stored block finer proves nothing either way: the hit becomes claimed', async () => {
    // A complete list elsewhere (an empty list is never complete).
    const none = { blocks: ['10.0.0.0/16'], complete: true };
    const projectId = (await createTestProject(t.services)).id;
    const hit: Hit = { userAgent: USER_AGENTS.ai, ip: '10.9.0.20', visitor: 0, path: '/', day: 0, ms: 0 };
    // Under A the whole /24 is outside the complete list: spoofed, stored as 10.9.0.0/24.
    await ingest(projectId, [hit], catalogOf({ gptbot: none, chatgpt: none }, false));
    expect((await storedRows(projectId)).map((row) => row.verification)).toEqual([3]);
    // B publishes 10.9.0.16/28 inside it: the stored /24 cannot say which side the address was on.
    await new ReclassificationJob(store, { ranges: catalogOf({ gptbot: none, chatgpt: none }, true) }).run();
    expect((await storedRows(projectId)).map((row) => [row.verification, row.agent])).toEqual([[1, 'ChatGPT']]);
  });
});
