import { describe, expect, it } from 'vitest';
import { classifyHit } from '../../../src/analytics/classification/classify-hit.js';
import { SPOOFED_SUFFIX } from '../../../src/analytics/verification/apply-verification.js';
import { ANALYTICS_BACKENDS } from '../../helpers/test-database.js';
import { USER_AGENTS } from '../../helpers/analytics-kit.js';
import { agentRows, knowDirectory, signedIngestService, useSignedSetup } from '../../helpers/signed-ingest.js';

const CHATGPT = classifyHit({ userAgent: USER_AGENTS.ai, path: '/' }).agent!;

describe.each(ANALYTICS_BACKENDS)('a signed request replayed to another server process [%s]', (dialect) => {
  const setup = useSignedSetup(dialect);

  it('counts the same signed request sent to two processes as verified once, and the replay as spoofed', async () => {
    // Two services, each with its own in-memory nonce table: two processes of one deployment.
    const one = await signedIngestService(setup.kit, { siteHosts: ['docs.example.com'] });
    const two = await signedIngestService(setup.kit, { siteHosts: ['docs.example.com'] });
    try {
      await knowDirectory(one.verification, setup.agentUrl);
      await knowDirectory(two.verification, setup.agentUrl);
      const created = Math.floor(setup.kit.t.clock.now() / 1000) - 1;
      const hit = (nonce: string, visitorId: string) => ({
        path: '/guide',
        visitorId,
        userAgent: USER_AGENTS.ai,
        webBotAuth: setup.signer.headers({ agentUrl: setup.agentUrl, authority: 'docs.example.com', created, nonce }),
      });
      await one.analytics.ingest(setup.kit.projectId, [hit('once', 'a'), hit('other', 'b')]);
      await two.analytics.ingest(setup.kit.projectId, [hit('once', 'c'), hit('fresh', 'd')]);
      const rows = await agentRows(one.analytics, setup.kit.projectId);
      expect(rows.get(CHATGPT)).toMatchObject({ hits: 3, verifiedHits: 3 });
      expect(rows.get(`${CHATGPT}${SPOOFED_SUFFIX}`)).toMatchObject({ class: 'bot', hits: 1, verifiedHits: 0 });
    } finally {
      await one.analytics.close();
      await two.analytics.close();
    }
  });
});
