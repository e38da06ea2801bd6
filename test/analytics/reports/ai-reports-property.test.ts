import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { AnalyticsService } from '../../../src/analytics/analytics-service.js';
import { HIT_CATEGORIES, READ_KINDS, VERIFICATIONS } from '../../../src/analytics/classification/hit-category.js';
import { HIT_CLASSES } from '../../../src/analytics/classification/classify-hit.js';
import { PAGES_SORTS } from '../../../src/analytics/reports/report-types.js';
import { ANALYTICS_BACKENDS } from '../../helpers/test-database.js';
import { createTestProject } from '../../helpers/test-app.js';
import { createAnalyticsKit, DAY, kitAnalyticsService, type AnalyticsKit } from '../../helpers/analytics-kit.js';
import { oracleAgentErrors, oracleAgents, oraclePages, oraclePagesOrder } from '../../helpers/report-oracle.js';
import { storeTaxonomyHits, type TaxonomyHit } from '../../helpers/taxonomy-hits.js';

const PATHS = ['/', '/guide', '/guide.md', '/llms.txt', '/api', '/z'];
const AGENTS = ['ChatGPT', 'Claude', 'GPTBot', 'Googlebot', 'Cursor'];
const REFERRALS = ['chatgpt.com', 'perplexity.ai', 'claude.ai'];
const DAYS = 6;

const hitArbitrary = fc.record({
  path: fc.constantFrom(...PATHS),
  visitor: fc.integer({ min: 1, max: 9 }),
  class: fc.constantFrom(...HIT_CLASSES),
  agent: fc.option(fc.constantFrom(...AGENTS), { nil: undefined }),
  category: fc.option(fc.constantFrom(...HIT_CATEGORIES), { nil: undefined, freq: 4 }),
  verification: fc.constantFrom(...VERIFICATIONS),
  readKind: fc.constantFrom(...READ_KINDS),
  status: fc.option(fc.constantFrom(200, 301, 400, 403, 404, 410, 451, 499, 500), { nil: undefined }),
  referral: fc.option(fc.constantFrom(...REFERRALS), { nil: undefined, freq: 3 }),
  day: fc.integer({ min: 0, max: DAYS - 1 }),
  ms: fc.oneof(fc.constantFrom(0, 1, DAY - 1), fc.integer({ min: 0, max: DAY - 1 })),
});
/** A bound in days relative to the first day (negative reaches before the 30-day retention: a 400), or open. */
const boundArbitrary = fc.option(fc.tuple(fc.integer({ min: -40, max: DAYS + 1 }), fc.integer({ min: 0, max: DAY - 1 })), { nil: null });

describe.each(ANALYTICS_BACKENDS)('agent, page and agent-4xx reports equal a brute-force count [%s]', (dialect) => {
  let kit: AnalyticsKit;
  let service: AnalyticsService;
  let start: number;
  beforeAll(async () => {
    kit = await createAnalyticsKit(dialect);
    service = kitAnalyticsService(kit);
    // Every hit in the past, as ingestion guarantees (an open dateTo ends just after the latest instant a hit may carry).
    start = (Math.floor(kit.t.clock.now() / DAY) - DAYS) * DAY;
  });
  afterAll(async () => {
    await service.close();
    await kit.close();
  });

  /** Every page of a paged report, checking hasMore on each. */
  async function walk<Entry>(fetch: (offset: number) => Promise<{ hasMore: boolean; entries: Entry[] }>, limit: number): Promise<Entry[]> {
    const all: Entry[] = [];
    for (let offset = 0; ; offset += limit) {
      const page = await fetch(offset);
      expect(page.entries.length).toBeLessThanOrEqual(limit);
      all.push(...page.entries);
      if (!page.hasMore) return all;
      expect(page.entries).toHaveLength(limit);
    }
  }

  test('per agent, per page (every sort), agent 4xx, referral sources; date bounds; pagination', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(hitArbitrary, { maxLength: 60 }),
        fc.array(fc.tuple(boundArbitrary, boundArbitrary), { minLength: 1, maxLength: 3 }),
        fc.integer({ min: 1, max: 4 }),
        fc.constantFrom(...PAGES_SORTS),
        fc.option(fc.constantFrom('asc' as const, 'desc' as const), { nil: undefined }),
        fc.constantFrom('none', 'all', 'half'),
        async (drawn, ranges, limit, sort, order, fold) => {
          const projectId = (await createTestProject(kit.t.services)).id;
          // People never carry an agent name (the classifier gives humans none).
          const hits: TaxonomyHit[] = drawn.map(({ day, ms, agent, ...hit }) => ({
            ...hit,
            agent: hit.class === 'human' ? undefined : agent,
            at: start + day * DAY + ms,
          }));
          // Human readers come from the visitor rollups: some scenarios fold all, half or none of the hits first.
          const cut = fold === 'half' ? Math.floor(hits.length / 2) : hits.length;
          await storeTaxonomyHits(service, projectId, hits.slice(0, cut));
          if (fold !== 'none') await service.fold();
          await storeTaxonomyHits(service, projectId, hits.slice(cut));
          const horizon = kit.t.clock.now() - 30 * DAY;
          for (const [fromBound, toBound] of ranges) {
            const from = fromBound === null ? null : start + fromBound[0] * DAY + fromBound[1];
            const to = toBound === null ? null : start + toBound[0] * DAY + toBound[1];
            const range = { from, to };
            if ((from !== null && to !== null && from > to) || (from !== null && from < horizon)) {
              await expect(service.agents(projectId, range)).rejects.toMatchObject({ status: 400 });
              await expect(service.pages(projectId, range)).rejects.toMatchObject({ status: 400 });
              await expect(service.agentErrors(projectId, range)).rejects.toMatchObject({ status: 400 });
              continue;
            }
            const windowFrom = from ?? horizon;
            const windowTo = to ?? Number.MAX_SAFE_INTEGER;
            const agents = await walk(async (offset) => {
              const page = await service.agents(projectId, { ...range, limit, offset });
              return { hasMore: page.hasMore, entries: page.agents };
            }, limit);
            expect(agents).toEqual(oracleAgents(hits, windowFrom, windowTo));

            const expectedPages = oraclePages(hits, windowFrom, windowTo);
            let sources: unknown;
            const pages = await walk(async (offset) => {
              const page = await service.pages(projectId, { ...range, limit, offset, sort, ...(order ? { order } : {}) });
              sources = page.referralSources;
              return { hasMore: page.hasMore, entries: page.pages };
            }, limit);
            expect(pages).toEqual(oraclePagesOrder(expectedPages.pages, sort, order));
            expect(sources).toEqual(expectedPages.referralSources);

            const errors = await walk(async (offset) => {
              const page = await service.agentErrors(projectId, { ...range, limit, offset });
              return { hasMore: page.hasMore, entries: page.errors };
            }, limit);
            expect(errors).toEqual(oracleAgentErrors(hits, windowFrom, windowTo));
          }
        },
      ),
      { numRuns: dialect === 'sqlite' ? 40 : 20 },
    );
  });
});
