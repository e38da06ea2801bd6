import { describe, expect, it } from 'vitest';
import { classifyHit } from '../../../src/analytics/classification/classify-hit.js';
import { SPOOFED_SUFFIX } from '../../../src/analytics/verification/apply-verification.js';
import { siteAuthorities } from '../../../src/analytics/verification/signed-authority.js';
import type { ProjectSettings } from '../../../src/projects/project.js';
import { ANALYTICS_BACKENDS } from '../../helpers/test-database.js';
import { USER_AGENTS } from '../../helpers/analytics-kit.js';
import { agentRows, knowDirectory, signedIngestService, useSignedSetup } from '../../helpers/signed-ingest.js';

const CHATGPT = classifyHit({ userAgent: USER_AGENTS.ai, path: '/' }).agent!;

describe('siteAuthorities', () => {
  it('takes siteHosts, else the hosts of allowedOrigins, normalised; null when the project names no site', () => {
    expect(siteAuthorities({ siteHosts: ['Docs.Example.com:443', 'beta.example.com:8443'] })).toEqual(['docs.example.com', 'beta.example.com:8443']);
    expect(siteAuthorities({ allowedOrigins: ['https://Docs.Example.com', 'http://localhost:3000/', '*'] })).toEqual(['docs.example.com', 'localhost:3000']);
    expect(siteAuthorities({ siteHosts: ['a.example.com'], allowedOrigins: ['https://b.example.com'] })).toEqual(['a.example.com']);
    expect(siteAuthorities({})).toBeNull();
    expect(siteAuthorities({ allowedOrigins: ['*'] })).toBeNull();
  });
});

describe.each(ANALYTICS_BACKENDS)('the signed @authority against the project site [%s]', (dialect) => {
  const setup = useSignedSetup(dialect);

  /** Ingests one signed ChatGPT-User hit per (authority, form) and returns the agents report. */
  async function ingestSigned(settings: ProjectSettings, hits: Array<{ authority: string; form: 'string' | 'dictionary' }>) {
    const { analytics, verification } = await signedIngestService(setup.kit, settings);
    try {
      await knowDirectory(verification, setup.agentUrl);
      const created = Math.floor(setup.kit.t.clock.now() / 1000) - 1;
      const events = hits.map(({ authority, form }, index) => ({
        path: `/p${index}`,
        visitorId: `v${index}`,
        userAgent: USER_AGENTS.ai,
        webBotAuth: setup.signer.headers({ agentUrl: setup.agentUrl, authority, form, created, nonce: `n${index}` }),
      }));
      expect((await analytics.ingest(setup.kit.projectId, events)).accepted).toBe(hits.length);
      return await agentRows(analytics, setup.kit.projectId);
    } finally {
      await analytics.close();
    }
  }

  it('verifies a signature made for the site, in both Signature-Agent forms', async () => {
    const rows = await ingestSigned({ siteHosts: ['docs.example.com'] }, [
      { authority: 'docs.example.com', form: 'string' },
      { authority: 'docs.example.com:443', form: 'dictionary' },
    ]);
    expect(rows.get(CHATGPT)).toMatchObject({ hits: 2, verifiedHits: 2, spoofedHits: 0 });
  });

  it('counts a signature made for another host as spoofed: a bot named after the claim, in both forms', async () => {
    const rows = await ingestSigned({ siteHosts: ['docs.example.com'] }, [
      { authority: 'other.example.com', form: 'string' },
      { authority: 'other.example.com', form: 'dictionary' },
      { authority: 'docs.example.com', form: 'string' },
    ]);
    expect(rows.get(CHATGPT)).toMatchObject({ hits: 1, verifiedHits: 1 });
    expect(rows.get(`${CHATGPT}${SPOOFED_SUFFIX}`)).toMatchObject({ class: 'bot', category: 'bot', hits: 2, verifiedHits: 0 });
  });

  it('takes the site from allowedOrigins when siteHosts is unset', async () => {
    const rows = await ingestSigned({ allowedOrigins: ['https://docs.example.com'] }, [
      { authority: 'docs.example.com', form: 'string' },
      { authority: 'evil.example.com', form: 'dictionary' },
    ]);
    expect(rows.get(CHATGPT)).toMatchObject({ hits: 1, verifiedHits: 1 });
    expect(rows.get(`${CHATGPT}${SPOOFED_SUFFIX}`)).toMatchObject({ hits: 1 });
  });

  it('leaves a signed hit claimed when the project names no site: the signature proves nothing about it', async () => {
    const rows = await ingestSigned({}, [
      { authority: 'docs.example.com', form: 'string' },
      { authority: 'other.example.com', form: 'dictionary' },
    ]);
    expect(rows.get(CHATGPT)).toMatchObject({ hits: 2, verifiedHits: 0, spoofedHits: 0 });
  });
});
