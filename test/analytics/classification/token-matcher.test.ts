import { describe, expect, test } from 'vitest';
import { createTokenMatcher } from '../../../src/analytics/classification/token-matcher.js';

const matcher = createTokenMatcher([
  { token: 'GPTBot', id: 'gptbot' },
  { token: 'Kangaroo Bot', id: 'kangaroo' },
  { token: 'bigsur.ai', id: 'bigsur' },
  { token: 'TSM-turingos', id: 'turingos' },
]);
const idOf = (userAgent: string): string | null => matcher.match(userAgent)?.id ?? null;

describe('whole-word token matching', () => {
  test.each([
    'GPTBot',
    'GPTBot/1.2',
    'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.1; +https://openai.com/gptbot',
    '(compatible; GPTBot)',
    'x; GPTBot; y',
    'gptbot/1.0',
    'GPTBOT',
    '+GPTBot',
    'GPTBot@openai.com',
    'GPTBot-2',
    'GPTBot.',
  ])('finds GPTBot in %j', (userAgent) => {
    expect(idOf(userAgent)).toBe('gptbot');
  });

  test.each(['NotGPTBotX', 'NotGPTBot', 'GPTBotX/1.0', 'GPTBot-Preview/1.0', 'GPTBot_2', 'my-GPTBot', 'GPT Bot', 'GPTBo'])(
    'does not find GPTBot in %j',
    (userAgent) => {
      expect(idOf(userAgent)).toBeNull();
    },
  );

  test('tokens with spaces and dots match literally', () => {
    expect(idOf('Mozilla/5.0 (compatible; Kangaroo Bot/1.0; +http://www.kangaroo.com)')).toBe('kangaroo');
    expect(idOf('Kangaroo  Bot')).toBeNull();
    expect(idOf('bigsur.ai')).toBe('bigsur');
    expect(idOf('bigsurxai')).toBeNull();
  });

  test('a hyphen followed by a digit is a build number, not a longer name', () => {
    expect(idOf('Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7; TSM-turingos-1253296984) AppleWebKit/537.36')).toBe('turingos');
    expect(idOf('TSM-turingos-beta')).toBeNull();
  });
});

describe('choosing among several tokens', () => {
  const ordered = createTokenMatcher([
    { token: 'claude-code', id: 'code' },
    { token: 'Claude-User', id: 'user' },
    { token: 'Claude', id: 'claude' },
  ]);

  test('the entry listed first wins, wherever its token appears', () => {
    expect(ordered.match('Claude-User (claude-code/2.1.86; +https://support.anthropic.com/)')?.id).toBe('code');
    expect(ordered.match('claude-code/1.0 Claude-User')?.id).toBe('code');
  });

  test('a shorter token does not match inside a longer hyphenated one', () => {
    expect(ordered.match('Claude-User/1.0')?.id).toBe('user');
    expect(ordered.match('Claude/1.0')?.id).toBe('claude');
  });

  test('matching is repeatable (no state leaks between calls)', () => {
    for (let round = 0; round < 3; round++) {
      expect(ordered.match('Claude-User (claude-code/2.1.86)')?.id).toBe('code');
      expect(ordered.match('nothing here')).toBeNull();
    }
  });

  test('tokens that differ only in case are one token, the first listed', () => {
    const dedupe = createTokenMatcher([
      { token: 'Agent', id: 'first' },
      { token: 'AGENT', id: 'second' },
    ]);
    expect(dedupe.match('agent/1')?.id).toBe('first');
  });

  test('an empty table never matches', () => {
    expect(createTokenMatcher([]).match('GPTBot')).toBeNull();
  });
});
