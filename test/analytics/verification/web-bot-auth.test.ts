import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/core/clock.js';
import { EvidenceVerifier } from '../../../src/analytics/verification/evidence-verifier.js';
import { KeyDirectoryCache } from '../../../src/analytics/verification/key-directory-cache.js';
import { NonceRegistry } from '../../../src/analytics/verification/nonce-registry.js';
import type { VerificationInput } from '../../../src/analytics/verification/hit-verifier.js';
import { startFakeKeyDirectory, TestSigner, type FakeKeyDirectory, type SignedRequest } from '../../fakes/web-bot-auth-signer.js';

const NOW = Date.UTC(2026, 10, 24, 12);
const SECONDS = NOW / 1000;
const AUTHORITY = 'docs.example.com';

describe('Web Bot Auth verification', () => {
  const chatgpt = new TestSigner();
  const google = new TestSigner();
  const stranger = new TestSigner();
  let openaiDirectory: FakeKeyDirectory;
  let googleDirectory: FakeKeyDirectory;
  let openaiUrl: string;
  let googleUrl: string;

  beforeAll(async () => {
    openaiDirectory = await startFakeKeyDirectory([chatgpt]);
    googleDirectory = await startFakeKeyDirectory([google]);
    openaiUrl = `http://chatgpt.com:${openaiDirectory.port}`;
    googleUrl = `http://agent.google.com:${googleDirectory.port}`;
  });
  afterAll(async () => {
    await openaiDirectory.close();
    await googleDirectory.close();
  });

  /** A verifier whose directories resolve every name to loopback (allowed by the test setting). */
  function setup(): { verifier: EvidenceVerifier; keys: KeyDirectoryCache; clock: ManualClock; check: (input: Partial<VerificationInput>) => Promise<string> } {
    const clock = new ManualClock(NOW);
    const keys = new KeyDirectoryCache({ clock, allowLoopback: true, resolve: () => Promise.resolve([{ address: '127.0.0.1', family: 4 }]) });
    const verifier = new EvidenceVerifier({
      ranges: { version: 'test', sets: [] },
      keys,
      rdnsVerdict: () => undefined,
      nonces: new NonceRegistry(NonceRegistry.allocate(1024)),
      clock,
    });
    const check = async (input: Partial<VerificationInput>): Promise<string> => {
      const full: VerificationInput = { category: 'ai-agent', agent: 'ChatGPT', operator: 'OpenAI', ip: '203.0.113.9', authorities: [AUTHORITY], ...input };
      const first = verifier.verify(full);
      const wants = verifier.takeWants();
      if (wants === null) return first;
      for (const { agentUrl, projectId } of wants.directories) keys.request(agentUrl, projectId);
      await keys.settled();
      return verifier.verify(full);
    };
    return { verifier, keys, clock, check };
  }

  const signer = (signing: TestSigner, request: Partial<SignedRequest> & { agentUrl: string | null }): VerificationInput['signature'] =>
    signing.headers({ authority: AUTHORITY, created: SECONDS - 5, ...request });
  const signed = (signer: TestSigner, request: Partial<SignedRequest> & { agentUrl: string | null }): VerificationInput['signature'] =>
    signer.headers({ authority: AUTHORITY, created: SECONDS - 5, nonce: `n-${Math.random()}`, ...request });

  it('verifies the plain-string Signature-Agent form (ChatGPT agent)', async () => {
    const { check } = setup();
    expect(await check({ signature: signed(chatgpt, { agentUrl: openaiUrl, form: 'string' }) })).toBe('verified');
  });

  it('verifies the dictionary Signature-Agent form (Google-Agent)', async () => {
    const { check } = setup();
    const signature = signed(google, {
      agentUrl: googleUrl,
      form: 'dictionary',
      components: ['@authority', '@method', '@path', 'signature-agent'],
      path: '/docs?q=1',
    });
    expect(await check({ agent: 'Google-Agent', operator: 'Google', signature })).toBe('verified');
  });

  it("labels a hit claimed while its unknown directory is fetched in the background, and asks for it once, on the hit's project's budget", () => {
    const { verifier } = setup();
    const input: VerificationInput = {
      category: 'ai-agent',
      agent: 'ChatGPT',
      operator: 'OpenAI',
      ip: null,
      signature: signed(chatgpt, { agentUrl: openaiUrl }),
      authorities: [AUTHORITY],
      projectId: 'project-a',
    };
    expect(verifier.verify(input)).toBe('claimed');
    expect(verifier.verify({ ...input, signature: signed(chatgpt, { agentUrl: openaiUrl }), projectId: 'project-b' })).toBe('claimed');
    expect(verifier.takeWants()).toEqual({ directories: [{ agentUrl: openaiUrl, projectId: 'project-a' }], lookups: [] });
  });

  it('rejects a tampered request: another authority, method or path than the one signed', async () => {
    const { check } = setup();
    const signature = signed(chatgpt, { agentUrl: openaiUrl, components: ['@authority', '@path', 'signature-agent'], path: '/a' })!;
    expect(await check({ signature: { ...signature, authority: 'evil.example.com' } })).toBe('spoofed');
    expect(await check({ signature: { ...signature, path: '/b', signature: signature.signature } })).toBe('spoofed');
    const flipped = signature.signature.replace(/:(.)/, (_, first: string) => `:${first === 'A' ? 'B' : 'A'}`);
    expect(await check({ signature: { ...signature, signature: flipped } })).toBe('spoofed');
  });

  it('checks a headers object changed in place after a valid check against its new fields (the parse is reused only while unchanged)', async () => {
    const { check } = setup();
    const signature = signed(chatgpt, { agentUrl: openaiUrl, components: ['@authority', '@path', 'signature-agent'], path: '/a' })!;
    expect(await check({ signature, eventId: 'e1' })).toBe('verified');
    signature.path = '/b';
    expect(await check({ signature, eventId: 'e1' })).toBe('spoofed');
    signature.path = '/a';
    expect(await check({ signature, eventId: 'e1' })).toBe('verified');
  });

  it('rejects expired and not-yet-valid signatures, and overlong windows', async () => {
    const { check } = setup();
    expect(await check({ signature: signed(chatgpt, { agentUrl: openaiUrl, created: SECONDS - 600, expires: SECONDS - 300 }) })).toBe('spoofed');
    expect(await check({ signature: signed(chatgpt, { agentUrl: openaiUrl, created: SECONDS + 600, expires: SECONDS + 900 }) })).toBe('spoofed');
    expect(await check({ signature: signed(chatgpt, { agentUrl: openaiUrl, created: SECONDS - 10, expires: SECONDS + 2 * 86_400 }) })).toBe('spoofed');
  });

  it('checks the window at the hit instant, not at ingest', async () => {
    const { check } = setup();
    const signature = signed(chatgpt, { agentUrl: openaiUrl, created: SECONDS - 3_600, expires: SECONDS - 3_540 });
    expect(await check({ signature, at: NOW - 3_590_000 })).toBe('verified');
  });

  it('rejects a replayed nonce within its window, and accepts a fresh one', async () => {
    const { check } = setup();
    const signature = signed(chatgpt, { agentUrl: openaiUrl, nonce: 'abc' });
    expect(await check({ signature })).toBe('verified');
    expect(await check({ signature })).toBe('spoofed');
    expect(await check({ signature: signed(chatgpt, { agentUrl: openaiUrl, nonce: 'abd' }) })).toBe('verified');
  });

  it('accepts the same nonce-less signature again (deterministic Ed25519), still checking its window and its input', async () => {
    const { check } = setup();
    const signature = signer(chatgpt, { agentUrl: openaiUrl, nonce: undefined, expires: SECONDS + 30 })!;
    expect(await check({ signature })).toBe('verified');
    expect(await check({ signature })).toBe('verified');
    expect(await check({ signature: { ...signature, authority: 'other.example.com' } })).toBe('spoofed');
    expect(await check({ signature, at: NOW + 120_000 })).toBe('spoofed');
  });

  it('counts a retried event (same id) reusing its nonce once more as verified, another event as a replay', async () => {
    const { check } = setup();
    const signature = signed(chatgpt, { agentUrl: openaiUrl, nonce: 'retry' });
    expect(await check({ signature, eventId: 'evt-1' })).toBe('verified');
    expect(await check({ signature, eventId: 'evt-1' })).toBe('verified');
    expect(await check({ signature, eventId: 'evt-2' })).toBe('spoofed');
  });

  it('follows a key rotation: a stale directory without the key is fetched again instead of failing the hit', async () => {
    const { check, clock, keys } = setup();
    const rotated = new TestSigner();
    const before = openaiDirectory.reply.body;
    try {
      expect(await check({ signature: signed(chatgpt, { agentUrl: openaiUrl }) })).toBe('verified');
      openaiDirectory.reply.body = JSON.stringify({ keys: [rotated.jwk] });
      // Fresh (max-age=3600): an unknown key is a wrong key.
      expect(await check({ signature: signed(rotated, { agentUrl: openaiUrl }) })).toBe('spoofed');
      clock.advance(3_700_000);
      const signature = signed(rotated, { agentUrl: openaiUrl, created: SECONDS + 3_695 });
      // Stale: claimed while the directory is fetched again, then verified.
      expect(await check({ signature })).toBe('verified');
      await keys.settled();
    } finally {
      openaiDirectory.reply.body = before;
    }
  });

  it('rejects a wrong key: a key the directory does not list, or a listed key id with another key', async () => {
    const { check } = setup();
    expect(await check({ signature: signed(stranger, { agentUrl: openaiUrl }) })).toBe('spoofed');
    expect(await check({ signature: signed(chatgpt, { agentUrl: openaiUrl, signWith: stranger.privateKey }) })).toBe('spoofed');
  });

  it('looks keys up by (agent URL, key id): a key from one directory does not verify for another agent', async () => {
    const { check } = setup();
    // Google's key, claimed under OpenAI's directory: OpenAI does not list it.
    expect(await check({ signature: signed(google, { agentUrl: openaiUrl }) })).toBe('spoofed');
  });

  it('does not verify a claim with a valid signature from an unrelated agent', async () => {
    const { check } = setup();
    // A valid Google signature proves Google sent it, not that the User-Agent's "ChatGPT" is true.
    expect(await check({ signature: signed(google, { agentUrl: googleUrl }) })).toBe('claimed');
  });

  it('keeps an unknown agent (directory not found) claimed, and malformed or unverifiable headers claimed', async () => {
    const { check } = setup();
    googleDirectory.reply.status = 404;
    try {
      expect(await check({ signature: signed(google, { agentUrl: `http://other.google.com:${googleDirectory.port}` }) })).toBe('claimed');
    } finally {
      googleDirectory.reply.status = 200;
    }
    expect(await check({ signature: { ...signed(chatgpt, { agentUrl: openaiUrl })!, signatureInput: 'sig1=(' } })).toBe('claimed');
    expect(await check({ signature: signed(chatgpt, { agentUrl: null }) })).toBe('claimed');
    expect(await check({ signature: signed(chatgpt, { agentUrl: openaiUrl, tag: 'other' }) })).toBe('claimed');
    expect(await check({ signature: signed(chatgpt, { agentUrl: openaiUrl, components: ['@authority', 'signature-agent', 'content-digest'] }) })).toBe(
      'claimed',
    );
  });

  it('gives humans no verdict', async () => {
    const { check } = setup();
    expect(await check({ category: 'human', agent: null, operator: null, signature: signed(chatgpt, { agentUrl: openaiUrl }) })).toBe('none');
  });
});

describe('NonceRegistry', () => {
  it('is shared through its buffer (as between worker threads) and forgets expired nonces', () => {
    const buffer = NonceRegistry.allocate(64);
    const a = new NonceRegistry(buffer);
    const b = new NonceRegistry(buffer);
    expect(a.remember('agent key', 'n1', 100, 10)).toBe(true);
    expect(b.remember('agent key', 'n1', 100, 50)).toBe(false);
    expect(b.remember('other key', 'n1', 100, 50)).toBe(true);
    expect(b.remember('agent key', 'n1', 200, 101)).toBe(true);
  });

  it('lets the same event (same id) through again, not another one', () => {
    const registry = new NonceRegistry(NonceRegistry.allocate(64));
    expect(registry.remember('k', 'n', 100, 0, 'event-1')).toBe(true);
    expect(registry.remember('k', 'n', 100, 0, 'event-1')).toBe(true);
    expect(registry.remember('k', 'n', 100, 0, 'event-2')).toBe(false);
    expect(registry.remember('k', 'n', 100, 0)).toBe(false);
  });

  it('stays bounded: a full table evicts the nonce expiring first', () => {
    const registry = new NonceRegistry(NonceRegistry.allocate(16));
    for (let index = 0; index < 1_000; index++) expect(registry.remember('k', `n${index}`, 10_000 + index, 0)).toBe(true);
    expect(registry.remember('k', 'n999', 20_000, 0)).toBe(false);
  });
});
