/** The verification suite's request batches (verification-suite.ts, verification-http.ts). */
import type { TestSigner } from '../test/fakes/web-bot-auth-signer.js';
import { createSeededRandom } from './lib/seeded-random.js';

export const UA = {
  human: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  chatgpt: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot',
  gptbot: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.1; +https://openai.com/gptbot)',
  googlebot: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
};

/**
 * Simulated time between two 1,000-hit batches: a site with 1,000 hits a second. Until
 * 2026-11-29 the clock stood still, so every signature of a run was made in the same
 * second and carried the same expiry: nothing expired and the nonce ledger's time-ordered
 * keys were all one run, in random order (about 9 more WAL pages per batch carrying signed
 * nonces than with time passing, docs/benchmarks.md). Real signers sign with the time of
 * each request, so here the service's clock, the hits and their signatures move on one
 * step per batch, on both sides alike, and the ledger is pruned each simulated minute.
 */
export const BATCH_STEP_MS = 1_000;

/** Nonces are single-use across the whole run: the nonce tables outlive a round. */
let nonce = 0;

/**
 * Batches of events shaped like docs traffic: mostly humans, agents by address, a few
 * signed by `agentUrl`'s key. The first batch's hits and signatures are at `start`, each
 * next batch's `stepMs` later. With `signedShare` 1 every agent hit is a signed
 * ChatGPT-User (the worst case).
 */
export function makeBatches(count: number, size: number, signer: TestSigner, signedShare: number, agentUrl: string, start: number, stepMs = 0): unknown[][] {
  const random = createSeededRandom(14);
  const batches: unknown[][] = [];
  for (let batch = 0; batch < count; batch++) {
    const now = start + batch * stepMs;
    const events: unknown[] = [];
    for (let index = 0; index < size; index++) {
      const roll = random();
      const path = `/docs/page-${Math.floor(random() * 500)}`;
      const octet = Math.floor(random() * 250);
      const agentRoll = random();
      if (roll < 0.8) events.push({ path, ip: `198.51.100.${octet}`, userAgent: UA.human, timestamp: now });
      else if (agentRoll >= signedShare && agentRoll < signedShare + (1 - signedShare) / 2) {
        events.push({ path, ip: agentRoll < 0.5 ? `20.171.206.${octet}` : `203.0.113.${octet}`, userAgent: UA.gptbot, timestamp: now });
      } else if (agentRoll >= signedShare) events.push({ path, ip: `66.249.64.${octet % 32}`, userAgent: UA.googlebot, timestamp: now });
      else {
        const webBotAuth = signer.headers({ agentUrl, authority: 'docs.example.com', created: Math.floor(now / 1000) - 2, nonce: `n${nonce++}`, path });
        events.push({ path, ip: `2a0a:b1c0:1::${octet.toString(16)}`, userAgent: UA.chatgpt, timestamp: now, webBotAuth });
      }
    }
    batches.push(events);
  }
  return batches;
}
