import { describe, expect, test } from 'vitest';
import { isbot } from 'isbot';
import rawTable from '../../../src/analytics/classification/ai-agents.json' with { type: 'json' };
import {
  AI_AGENT_TABLE_VERSION,
  classifyHit,
  countsAsAi,
  countsAsHuman,
  createHitClassifier,
  HIT_CLASSES,
} from '../../../src/analytics/classification/classify-hit.js';
import { parseAiAgentTable } from '../../../src/analytics/classification/ai-agent-table.js';

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const CHATGPT_USER = 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot';
const GPTBOT = 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.1; +https://openai.com/gptbot';
const CLAUDE_CODE_ACCEPT = 'text/markdown, text/html, */*';

describe('order of checks', () => {
  test('the AI table is consulted before the generic bot list, which also flags AI assistants', () => {
    expect(isbot(CHATGPT_USER)).toBe(true);
    expect(classifyHit({ userAgent: CHATGPT_USER, path: '/docs' })).toEqual({
      class: 'ai',
      agent: 'ChatGPT',
      operator: 'OpenAI',
      category: 'ai-assistant',
    });
  });

  test('a crawler keeps its own class when it fetches Markdown', () => {
    expect(classifyHit({ userAgent: GPTBOT, path: '/docs/intro.md' }).class).toBe('ai-training');
    expect(classifyHit({ userAgent: GPTBOT, path: '/docs', accept: 'text/markdown' }).class).toBe('ai-training');
  });

  test('a Markdown fetch by a generic client or a browser user agent is ai', () => {
    expect(classifyHit({ userAgent: 'curl/8.4.0', path: '/docs/intro.md' })).toEqual({
      class: 'ai',
      agent: 'curl',
      operator: null,
      category: 'ai-other',
    });
    expect(classifyHit({ userAgent: 'axios/1.8.4', path: '/docs', accept: CLAUDE_CODE_ACCEPT })).toEqual({
      class: 'ai',
      agent: 'axios',
      operator: null,
      category: 'ai-other',
    });
    expect(classifyHit({ userAgent: CHROME, path: '/docs/intro.mdx' })).toEqual({ class: 'ai', agent: null, operator: null, category: 'ai-other' });
  });

  test('without Markdown, a generic client is a bot and a browser is human', () => {
    expect(classifyHit({ userAgent: 'curl/8.4.0', path: '/docs/intro' })).toEqual({ class: 'bot', agent: 'curl', operator: null, category: 'bot' });
    expect(classifyHit({ userAgent: CHROME, path: '/docs/intro' })).toEqual({ class: 'human', agent: null, operator: null, category: 'human' });
    expect(classifyHit({ userAgent: CHROME, path: '/docs/intro', accept: 'text/html,*/*;q=0.8' }).class).toBe('human');
  });

  test('several tokens in one user agent resolve to the entry listed first in the table', () => {
    // Claude Code's WebFetch sends the hosted product's token and its own.
    const result = classifyHit({ userAgent: 'Claude-User (claude-code/2.1.86; +https://support.anthropic.com/)', path: '/docs' });
    expect(result).toEqual({ class: 'ai', agent: 'Claude Code', operator: 'Anthropic', category: 'ai-coding-agent' });
  });
});

describe('empty and unusual user agents', () => {
  test.each([[undefined], [null], [''], ['   '], ['\t']])('%j is an unnamed bot', (userAgent) => {
    expect(classifyHit({ userAgent, path: '/docs' })).toEqual({ class: 'bot', agent: null, operator: null, category: 'bot' });
  });

  test('an empty user agent fetching Markdown is ai', () => {
    expect(classifyHit({ userAgent: '', path: '/docs/a.md' }).class).toBe('ai');
    expect(classifyHit({ path: '/docs', accept: 'text/markdown' }).class).toBe('ai');
  });

  test('surrounding whitespace does not change the verdict', () => {
    expect(classifyHit({ userAgent: `  ${GPTBOT}  `, path: '/' }).class).toBe('ai-training');
  });

  test('an enormous user agent is classified by its start only', () => {
    // A token far past the length cap is never scanned, so a hostile header costs no more than a normal one.
    const huge = CHROME + ' x'.repeat(200_000) + ' GPTBot/1.2';
    expect(classifyHit({ userAgent: huge, path: '/' }).class).toBe('human');
    expect(classifyHit({ userAgent: CHROME + ' GPTBot/1.2', path: '/' }).class).toBe('ai-training');
  });
});

describe('results', () => {
  test('a cached classification cannot be changed by a caller', () => {
    const first = classifyHit({ userAgent: GPTBOT, path: '/' });
    expect(() => {
      (first as { class: string }).class = 'human';
    }).toThrow(TypeError);
    expect(classifyHit({ userAgent: GPTBOT, path: '/' }).class).toBe('ai-training');
  });

  test('the same answer comes with and without the cache', () => {
    const uncached = createHitClassifier({ cacheSize: 0 });
    const cached = createHitClassifier({ cacheSize: 2 });
    const inputs = [CHROME, GPTBOT, CHATGPT_USER, 'curl/8.4.0', CHROME, 'Wget/1.21', GPTBOT, ''].map((userAgent) => ({
      userAgent,
      path: '/docs',
    }));
    for (const input of inputs) expect(cached.classify(input)).toEqual(uncached.classify(input));
  });

  test('a classifier built from another table labels with that table', () => {
    const table = parseAiAgentTable({
      version: '2030-01-01',
      entries: [
        { token: 'ExampleAgent', name: 'Example', operator: 'Example Inc.', class: 'ai-search', category: 'ai-search', source: 'https://example.com/bot' },
      ],
    });
    const classifier = createHitClassifier({ table });
    expect(classifier.tableVersion).toBe('2030-01-01');
    expect(classifier.classify({ userAgent: 'ExampleAgent/2.0', path: '/' })).toEqual({
      class: 'ai-search',
      agent: 'Example',
      operator: 'Example Inc.',
      category: 'ai-search',
    });
    // GPTBot is not in this table, so only the generic bot list sees it.
    expect(classifier.classify({ userAgent: GPTBOT, path: '/' }).class).toBe('bot');
  });
});

describe('exports for counting and storage', () => {
  test('only human counts as human and only ai counts as ai', () => {
    expect(HIT_CLASSES.filter(countsAsHuman)).toEqual(['human']);
    expect(HIT_CLASSES.filter(countsAsAi)).toEqual(['ai']);
  });

  test('the table version is the shipped table version, a date', () => {
    expect(AI_AGENT_TABLE_VERSION).toBe(rawTable.version);
    expect(AI_AGENT_TABLE_VERSION).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(createHitClassifier().tableVersion).toBe(AI_AGENT_TABLE_VERSION);
  });
});
