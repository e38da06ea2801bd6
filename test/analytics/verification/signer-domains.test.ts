import { describe, expect, it } from 'vitest';
import { signerBelongsTo } from '../../../src/analytics/verification/signer-domains.js';

describe('which operator a Signature-Agent belongs to', () => {
  it('matches the host exactly or as a subdomain, and gives the same answer when asked again (the host is remembered)', () => {
    const cases: Array<[string, string, boolean]> = [
      ['OpenAI', 'https://chatgpt.com', true],
      ['openai', 'https://agent.chatgpt.com', true],
      ['OpenAI', 'https://evilchatgpt.com', false],
      ['OpenAI', 'https://chatgpt.com.example', false],
      ['Google', 'https://chatgpt.com', false],
      ['Unknown operator', 'https://chatgpt.com', false],
      ['OpenAI', 'not a url', false],
      ['Anthropic', 'https://CLAUDE.AI', true],
    ];
    for (let round = 0; round < 2; round++) {
      for (const [operator, agentUrl, expected] of cases) expect(signerBelongsTo(operator, agentUrl), `${operator} ${agentUrl}`).toBe(expected);
    }
  });

  it('keeps answering right past the number of remembered hosts', () => {
    for (let index = 0; index < 600; index++) {
      expect(signerBelongsTo('OpenAI', `https://a${index}.chatgpt.com`)).toBe(true);
      expect(signerBelongsTo('OpenAI', `https://a${index}.example.com`)).toBe(false);
    }
  });
});
