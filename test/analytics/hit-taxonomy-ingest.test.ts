import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { CATEGORY_CODES, READ_KIND_CODES, REFERRAL_KIND, VERIFICATION_CODES } from '../../src/analytics/analytics-codes.js';
import { ANALYTICS_BACKENDS } from '../helpers/test-database.js';
import { createAnalyticsKit, USER_AGENTS, type AnalyticsKit } from '../helpers/analytics-kit.js';
import { clickhouseRows } from '../helpers/clickhouse-rows.js';

interface StoredHit {
  page: string;
  category: number;
  verification: number;
  read_kind: number;
  status: number | null;
  referral: string | null;
  class: number;
}

const CURSOR =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Cursor/0.45.11 Chrome/128.0.6613.186 Electron/32.2.6 Safari/537.36';
const GOOGLE_AGENT =
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Google-Agent; +https://developers.google.com/crawling/docs/crawlers-fetchers/google-agent) Chrome/138.0.7204.183 Safari/537.36';

describe.each(ANALYTICS_BACKENDS)('the taxonomy columns of stored hits [%s]', (backend) => {
  let kit: AnalyticsKit;
  beforeEach(async () => {
    kit = await createAnalyticsKit(backend);
  });
  afterEach(async () => kit.close());

  /** Stored hits with their page and referral names, ordered by page. */
  async function storedHits(): Promise<StoredHit[]> {
    const names = new Map(
      (await kit.t.services.database.db.selectFrom('analytics_dimensions').select(['id', 'kind', 'name']).execute()).map((row) => [
        Number(row.id),
        { kind: Number(row.kind), name: row.name },
      ]),
    );
    const rows =
      backend === 'clickhouse'
        ? await clickhouseRows<Record<string, number | null>>(
            kit.t,
            'SELECT page, category, verification, read_kind, status, referral, class FROM analytics_hits',
          )
        : await kit.t.services.database.db
            .selectFrom('analytics_hits')
            .select(['page', 'category', 'verification', 'read_kind', 'status', 'referral', 'class'])
            .execute();
    return rows
      .map((row) => {
        const referral = row.referral === null ? null : names.get(Number(row.referral))!;
        if (referral !== null) expect(referral.kind).toBe(REFERRAL_KIND);
        return {
          page: names.get(Number(row.page))!.name,
          category: Number(row.category),
          verification: Number(row.verification),
          read_kind: Number(row.read_kind),
          status: row.status === null ? null : Number(row.status),
          referral: referral?.name ?? null,
          class: Number(row.class),
        };
      })
      .sort((a, b) => a.page.localeCompare(b.page));
  }

  test('category, verification (claim only by default), read kind, status and AI referral are stored per hit', async () => {
    const response = await kit.send([
      { path: '/a-human', visitorId: 'h', userAgent: USER_AGENTS.human, status: 200, referrer: 'https://chatgpt.com/c/123' },
      { path: '/b-utm?utm_source=chatgpt.com&x=1', visitorId: 'h', userAgent: USER_AGENTS.human },
      { path: '/c-plain', visitorId: 'h', userAgent: USER_AGENTS.human, referrer: 'https://www.google.com/' },
      { path: '/d-assistant', visitorId: 'a', userAgent: USER_AGENTS.ai, referrer: 'https://chatgpt.com/', status: 404 },
      { path: '/e-coding.md', visitorId: 'c', userAgent: CURSOR },
      { path: '/f-agent', visitorId: 'g', userAgent: GOOGLE_AGENT, accept: 'text/markdown' },
      { path: '/llms.txt', visitorId: 's', userAgent: USER_AGENTS.aiSearch },
      { path: '/docs/llms-full.txt', visitorId: 't', userAgent: USER_AGENTS.aiTraining, status: 301 },
      { path: '/g-curl.md', visitorId: 'u', userAgent: 'curl/8.4.0' },
      { path: '/h-bot', visitorId: 'b', userAgent: USER_AGENTS.bot, status: 503 },
    ]);
    expect(response.json()).toMatchObject({ accepted: 10, rejected: [] });
    const { human, 'ai-assistant': assistant, 'ai-agent': agent, 'ai-coding-agent': coding, 'ai-search': search, 'ai-training': training } = CATEGORY_CODES;
    const { none, claimed } = VERIFICATION_CODES;
    const { page, markdown } = READ_KIND_CODES;
    expect(await storedHits()).toEqual([
      { page: '/a-human', category: human, verification: none, read_kind: page, status: 200, referral: 'chatgpt.com', class: 1 },
      { page: '/b-utm', category: human, verification: none, read_kind: page, status: null, referral: 'chatgpt.com', class: 1 },
      { page: '/c-plain', category: human, verification: none, read_kind: page, status: null, referral: null, class: 1 },
      // Only a person arriving from an AI product is an AI referral, not the assistant itself.
      { page: '/d-assistant', category: assistant, verification: claimed, read_kind: page, status: 404, referral: null, class: 2 },
      {
        page: '/docs/llms-full.txt',
        category: training,
        verification: claimed,
        read_kind: READ_KIND_CODES['llms-full-txt'],
        status: 301,
        referral: null,
        class: 4,
      },
      { page: '/e-coding.md', category: coding, verification: claimed, read_kind: markdown, status: null, referral: null, class: 2 },
      { page: '/f-agent', category: agent, verification: claimed, read_kind: markdown, status: null, referral: null, class: 2 },
      { page: '/g-curl.md', category: CATEGORY_CODES['ai-other'], verification: claimed, read_kind: markdown, status: null, referral: null, class: 2 },
      { page: '/h-bot', category: CATEGORY_CODES.bot, verification: claimed, read_kind: page, status: 503, referral: null, class: 5 },
      { page: '/llms.txt', category: search, verification: claimed, read_kind: READ_KIND_CODES['llms-txt'], status: null, referral: null, class: 3 },
    ]);
    // The visitors endpoint is unchanged: the assistant, the coding and browsing agents and the Markdown fetch are ai.
    expect((await kit.get('visitors')).json().totals).toEqual({ human: 1, ai: 4, total: 5 });
  });

  test('a status that is not an HTTP status is a per-item rejection; the rest of the batch is stored', async () => {
    const good = { path: '/ok', visitorId: 'v', userAgent: USER_AGENTS.human };
    const response = await kit.send([
      { ...good, status: 99 },
      { ...good, status: 600 },
      { ...good, status: 200.5 },
      { ...good, status: '404' },
      { ...good, status: 100 },
      { ...good, status: 599 },
      { ...good, status: null },
    ]);
    const body = response.json<{ accepted: number; rejected: Array<{ index: number; code: string; message: string }> }>();
    expect(body.rejected.map((rejection) => [rejection.index, rejection.code])).toEqual([
      [0, 'invalid_field'],
      [1, 'invalid_field'],
      [2, 'invalid_field'],
      [3, 'invalid_field'],
    ]);
    expect(body.rejected[0]!.message).toContain('100 to 599');
    expect(body.accepted).toBe(3);
    expect((await storedHits()).map((hit) => hit.status).sort()).toEqual([100, 599, null]);
  });
});
