import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { classifyHit } from '../../../src/analytics/classification/classify-hit.js';
import { SPOOFED_SUFFIX } from '../../../src/analytics/verification/apply-verification.js';
import { ANALYTICS_BACKENDS } from '../../helpers/test-database.js';
import { createAnalyticsKit, USER_AGENTS, type AnalyticsKit } from '../../helpers/analytics-kit.js';
import { agentRows, knowDirectory, signedIngestService } from '../../helpers/signed-ingest.js';
import { startFakeKeyDirectory, TestSigner, type FakeKeyDirectory } from '../../fakes/web-bot-auth-signer.js';

const CHATGPT = classifyHit({ userAgent: USER_AGENTS.ai, path: '/' }).agent!;

describe.each(ANALYTICS_BACKENDS)('a signed request replayed to another server process [%s]', (dialect) => {
  const signer = new TestSigner();
  let directory: FakeKeyDirectory;
  let agentUrl: string;
  let kit: AnalyticsKit;
  beforeAll(async () => {
    directory = await startFakeKeyDirectory([signer]);
    agentUrl = `http://chatgpt.com:${directory.port}`;
  });
  afterAll(async () => directory.close());
  beforeEach(async () => {
    kit = await createAnalyticsKit(dialect);
  });
  afterEach(async () => kit.close());

  it('counts the same signed request sent to two processes as verified once, and the replay as spoofed', async () => {
    // Two services, each with its own in-memory nonce table: two processes of one deployment.
    const one = await signedIngestService(kit, { siteHosts: ['docs.example.com'] });
    const two = await signedIngestService(kit, { siteHosts: ['docs.example.com'] });
    try {
      await knowDirectory(one.verification, agentUrl);
      await knowDirectory(two.verification, agentUrl);
      const created = Math.floor(kit.t.clock.now() / 1000) - 1;
      const hit = (nonce: string, visitorId: string) => ({
        path: '/guide',
        visitorId,
        userAgent: USER_AGENTS.ai,
        webBotAuth: signer.headers({ agentUrl, authority: 'docs.example.com', created, nonce }),
      });
      await one.analytics.ingest(kit.projectId, [hit('once', 'a'), hit('other', 'b')]);
      await two.analytics.ingest(kit.projectId, [hit('once', 'c'), hit('fresh', 'd')]);
      const rows = await agentRows(one.analytics, kit.projectId);
      expect(rows.get(CHATGPT)).toMatchObject({ hits: 3, verifiedHits: 3 });
      expect(rows.get(`${CHATGPT}${SPOOFED_SUFFIX}`)).toMatchObject({ class: 'bot', hits: 1, verifiedHits: 0 });
    } finally {
      await one.analytics.close();
      await two.analytics.close();
    }
  });
});
