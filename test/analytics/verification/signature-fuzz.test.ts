import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { EvidenceVerifier } from '../../../src/analytics/verification/evidence-verifier.js';
import { snapshotKeyLookup } from '../../../src/analytics/verification/key-directory-cache.js';
import { NonceRegistry } from '../../../src/analytics/verification/nonce-registry.js';
import { buildRangeCatalog } from '../../../src/analytics/verification/range-catalog.js';
import { readSignatureField } from '../../../src/analytics/verification/signature-field.js';
import { FIXTURE_RANGES } from '../../fixtures/agent-ranges.js';
import { TestSigner } from '../../fakes/web-bot-auth-signer.js';

/** Pieces real headers are made of, so the generator reaches deep into the parser, not only its first check. */
const piece = fc.constantFrom(
  'sig1=',
  '(',
  ')',
  '"@authority"',
  '"signature-agent"',
  ';key="sig1"',
  ';created=1764000000',
  ';expires=1764000060',
  ';keyid="abc"',
  ';tag="web-bot-auth"',
  ';nonce="n"',
  ';alg="ed25519"',
  ':AAAA:',
  '"https://chatgpt.com"',
  ' ',
  ',',
  '=',
  '?1',
  '-5',
  '1e9',
  '\\"',
);
const header = fc.oneof(
  fc.string({ maxLength: 80 }),
  fc.array(piece, { maxLength: 20 }).map((parts) => parts.join('')),
);

describe('signature input never throws', () => {
  const signer = new TestSigner();
  const clock = new ManualClock(Date.UTC(2026, 10, 24));
  const verifier = new EvidenceVerifier({
    ranges: buildRangeCatalog(FIXTURE_RANGES),
    keys: snapshotKeyLookup([{ agentUrl: 'https://chatgpt.com', state: 'ready', keys: [{ keyId: signer.keyId, x: signer.jwk.x }] }]),
    rdnsVerdict: () => undefined,
    nonces: new NonceRegistry(NonceRegistry.allocate(256)),
    clock,
  });

  it('any webBotAuth value is read or rejected with a message; any accepted one gets a label', () => {
    fc.assert(
      fc.property(
        header,
        header,
        fc.option(header),
        fc.constantFrom('GET', 'POST', 'get', ''),
        fc.string({ maxLength: 40 }),
        (signature, signatureInput, signatureAgent, method, path) => {
          const read = readSignatureField({ signature, signatureInput, signatureAgent, method, authority: 'docs.example.com', path: `/${path}` });
          if (read === null) throw new Error('a present member is never null');
          if ('message' in read) {
            expect(typeof read.message).toBe('string');
            return;
          }
          const label = verifier.verify({ category: 'ai-agent', agent: 'ChatGPT', operator: 'OpenAI', ip: '203.0.113.1', signature: read });
          expect(['claimed', 'verified', 'spoofed']).toContain(label);
        },
      ),
      { numRuns: 2_000 },
    );
  });

  it('non-object and odd-typed members are rejected, not thrown', () => {
    fc.assert(
      fc.property(fc.anything(), (value) => {
        const read = readSignatureField(value);
        expect(read === null || 'message' in read || typeof read.signature === 'string').toBe(true);
      }),
      { numRuns: 1_000 },
    );
  });
});
