import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { applyVerification } from '../../../src/analytics/verification/apply-verification.js';
import { EvidenceVerifier } from '../../../src/analytics/verification/evidence-verifier.js';
import { snapshotKeyLookup } from '../../../src/analytics/verification/key-directory-cache.js';
import { NonceRegistry } from '../../../src/analytics/verification/nonce-registry.js';
import { signedAgentClaim } from '../../../src/analytics/verification/signed-agent-claim.js';
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

  /** What the pipeline does for a browser User-Agent: the signature's claim, then its verdict. */
  const label = (signature: ReturnType<typeof headers>) => {
    const claim = signedAgentClaim(signature);
    if (claim === null) return null;
    const classification = { class: 'ai' as const, category: claim.category, agent: claim.agent, operator: claim.operator };
    const verdict = verifier.verify({ ...classification, ip: '198.51.100.4', signature, at: NOW });
    return { verdict, counted: applyVerification(classification, verdict) };
  };

  it('is ChatGPT Agent, verified, in both Signature-Agent forms', () => {
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
    expect(label(headers(forger, 'https://agent.example', 'e'))).toBeNull();
    expect(signedAgentClaim({ ...headers(openai, 'https://chatgpt.com', 'f'), signatureInput: 'garbage' })).toBeNull();
    expect(signedAgentClaim(null)).toBeNull();
  });
});
