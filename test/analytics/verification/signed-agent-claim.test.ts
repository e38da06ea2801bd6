import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { EvidenceVerifier } from '../../../src/analytics/verification/evidence-verifier.js';
import { snapshotKeyLookup } from '../../../src/analytics/verification/key-directory-cache.js';
import { NonceRegistry } from '../../../src/analytics/verification/nonce-registry.js';
import { signedAgentClaim } from '../../../src/analytics/verification/signed-agent-claim.js';
import { verifyHit } from '../../../src/analytics/verification/verify-hit.js';
import { TestSigner } from '../../fakes/web-bot-auth-signer.js';

const NOW = Date.UTC(2026, 10, 24, 12);

describe('a browser-driving agent named by its signature', () => {
  const openai = new TestSigner();
  const forger = new TestSigner();
  const verifier = new EvidenceVerifier({
    ranges: { version: 'none', sets: [] },
    keys: snapshotKeyLookup([{ agentUrl: 'https://chatgpt.com', state: 'ready', keys: [{ keyId: openai.keyId, x: openai.jwk.x }] }]),
    rdnsVerdict: () => undefined,
    nonces: new NonceRegistry(NonceRegistry.allocate(64)),
    clock: new ManualClock(NOW),
  });
  const headers = (signer: TestSigner, agentUrl: string, nonce: string) =>
    signer.headers({ agentUrl, authority: 'docs.example.com', created: NOW / 1000 - 1, nonce, form: nonce.endsWith('d') ? 'dictionary' : 'string' });

  /** What the pipeline does for a hit with a browser User-Agent. */
  const label = (signature: ReturnType<typeof headers>) => {
    const human = { class: 'human' as const, category: 'human' as const, agent: null, operator: null };
    const { classification, verification } = verifyHit(verifier, human, {
      ip: '198.51.100.4',
      signature,
      at: NOW,
      eventId: null,
      authorities: ['docs.example.com'],
    });
    return { verdict: verification, counted: classification };
  };

  it('is ChatGPT Agent, verified, in both Signature-Agent forms (verifyHit, as the pipeline runs it)', () => {
    for (const nonce of ['a', 'b-d']) {
      expect(label(headers(openai, 'https://chatgpt.com', nonce))).toEqual({
        verdict: 'verified',
        counted: { class: 'ai', category: 'ai-agent', agent: 'ChatGPT Agent', operator: 'OpenAI' },
      });
    }
  });

  it('is a spoofed bot when the signature is not OpenAI’s, and nothing when no known signer is named', () => {
    expect(label(headers(forger, 'https://chatgpt.com', 'c'))).toEqual({
      verdict: 'spoofed',
      counted: { class: 'bot', category: 'bot', agent: 'ChatGPT Agent (spoofed)', operator: null },
    });
    expect(label(headers(forger, 'https://agent.example', 'e'))).toEqual({
      verdict: 'none',
      counted: { class: 'human', category: 'human', agent: null, operator: null },
    });
    expect(signedAgentClaim({ ...headers(openai, 'https://chatgpt.com', 'f'), signatureInput: 'garbage' })).toBeNull();
    expect(signedAgentClaim(null)).toBeNull();
  });
});
