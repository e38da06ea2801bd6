import { describe, expect, test } from 'vitest';
import crawlers from 'crawler-user-agents';
import rawTable from '../../../src/analytics/classification/ai-agents.json' with { type: 'json' };
import { AI_AGENT_TABLE, parseAiAgentTable } from '../../../src/analytics/classification/ai-agent-table.js';
import { classifyHit } from '../../../src/analytics/classification/classify-hit.js';
import { DocwrightError } from '../../../src/core/errors.js';

const AI_CLASSES = ['ai', 'ai-search', 'ai-training'];

// The package's typings predate its `tags` field.
const taggedCrawlers = crawlers as ReadonlyArray<(typeof crawlers)[number] & { tags?: string[] }>;

describe('the shipped AI agent table', () => {
  test('has a date version and many entries', () => {
    expect(rawTable.version).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(Number.isNaN(Date.parse(`${rawTable.version}T00:00:00Z`))).toBe(false);
    expect(AI_AGENT_TABLE.entries.length).toBeGreaterThanOrEqual(100);
  });

  test('every entry is well formed', () => {
    for (const entry of rawTable.entries) {
      expect(entry.token.trim()).toBe(entry.token);
      expect(entry.token.length).toBeGreaterThanOrEqual(2);
      expect(entry.name.trim().length).toBeGreaterThan(0);
      expect(entry.operator.trim().length).toBeGreaterThan(0);
      expect(AI_CLASSES).toContain(entry.class);
      expect(new URL(entry.source).protocol).toBe('https:');
    }
  });

  test('tokens are unique, ignoring case', () => {
    const tokens = rawTable.entries.map((entry) => entry.token.toLowerCase());
    expect(new Set(tokens).size).toBe(tokens.length);
  });

  test('covers the major operators', () => {
    const operators = new Set(AI_AGENT_TABLE.entries.map((entry) => entry.operator));
    for (const operator of [
      'OpenAI',
      'Anthropic',
      'Perplexity',
      'Google',
      'Apple',
      'Meta',
      'Amazon',
      'ByteDance',
      'Common Crawl',
      'Cohere',
      'Mistral AI',
      'DuckDuckGo',
      'You.com',
      'Diffbot',
      'Microsoft',
    ]) {
      expect(operators, operator).toContain(operator);
    }
  });

  test('robots.txt-only tokens are marked as such', () => {
    const robotsOnly = AI_AGENT_TABLE.entries.filter((entry) => entry.robotsOnly).map((entry) => entry.token);
    expect(robotsOnly).toEqual(expect.arrayContaining(['Google-Extended', 'Applebot-Extended']));
  });

  test.each(AI_AGENT_TABLE.entries.map((entry) => [entry.token, entry] as const))('%s is recognised inside a typical user agent', (token, entry) => {
    const userAgent = `Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ${token}/1.0; +https://example.com/bot)`;
    const result = classifyHit({ userAgent, path: '/docs' });
    // An earlier entry may share the user agent only if it is the same token; each token stands alone here.
    expect(result).toEqual({ class: entry.class, agent: entry.name, operator: entry.operator, category: entry.category });
  });
});

describe('agreement with crawler-user-agents', () => {
  // Entries that package tags as AI crawlers but that the table deliberately leaves out.
  const LEFT_OUT: Record<string, string> = {
    'Spider[\\s\\S]*spider\\.com': 'the token "Spider" is a common word of search engine user agents',
    ExteContextCrawl: 'no https documentation of the operator',
    crawl4ai: 'a general crawling library whose adapter token says nothing about the use',
    'semantic-visions': 'a media-monitoring crawler, not an AI agent or AI crawler',
    AISearchBot: 'no documented instance or operator',
  };

  test('every documented instance of an AI crawler is classified as AI, or left out on purpose', () => {
    const missed: string[] = [];
    for (const crawler of taggedCrawlers) {
      if (!crawler.tags?.includes('ai-crawler') || crawler.pattern in LEFT_OUT) continue;
      expect(crawler.instances.length, crawler.pattern).toBeGreaterThan(0);
      for (const instance of crawler.instances) {
        const result = classifyHit({ userAgent: instance, path: '/' });
        if (!AI_CLASSES.includes(result.class)) missed.push(`${crawler.pattern}: ${instance}`);
      }
    }
    expect(missed).toEqual([]);
  });

  test('the deliberate omissions still exist upstream (remove them here when they go)', () => {
    const patterns = new Set(crawlers.map((crawler) => crawler.pattern));
    for (const pattern of Object.keys(LEFT_OUT)) expect(patterns.has(pattern), pattern).toBe(true);
  });
});

describe('parseAiAgentTable', () => {
  const valid = {
    version: '2026-01-01',
    entries: [
      { token: 'ExampleBot', name: 'ExampleBot', operator: 'Example', class: 'ai-training', category: 'ai-training', source: 'https://example.com/bot' },
    ],
  };

  const rejects = (raw: unknown): DocwrightError => {
    try {
      parseAiAgentTable(raw);
    } catch (error) {
      expect(error).toBeInstanceOf(DocwrightError);
      expect((error as DocwrightError).code).toBe('invalid_agent_table');
      return error as DocwrightError;
    }
    throw new Error('expected the table to be rejected');
  };

  test('accepts a valid table and fills defaults', () => {
    expect(parseAiAgentTable(valid).entries[0]).toEqual({ ...valid.entries[0], robotsOnly: false, note: null });
  });

  test('rejects a duplicate token, whatever its case', () => {
    const error = rejects({ ...valid, entries: [...valid.entries, { ...valid.entries[0], token: 'examplebot' }] });
    expect(error.message).toContain('examplebot');
  });

  test('rejects a category that disagrees with the class', () => {
    const error = rejects({ ...valid, entries: [{ ...valid.entries[0], category: 'ai-assistant' }] });
    expect(error.message).toContain('ai-assistant');
  });

  test('rejects an http source', () => {
    const error = rejects({ ...valid, entries: [{ ...valid.entries[0], source: 'http://example.com/bot' }] });
    expect(error.errors?.[0]?.path).toBe('entries.0.source');
  });

  test.each([
    ['an unknown class', { ...valid, entries: [{ ...valid.entries[0], class: 'bot' }] }],
    ['a version that is not a date', { ...valid, version: 'v2' }],
    ['no entries', { ...valid, entries: [] }],
    ['a missing operator', { ...valid, entries: [{ ...valid.entries[0], operator: undefined }] }],
    ['a one-letter token', { ...valid, entries: [{ ...valid.entries[0], token: 'x' }] }],
    ['not an object', 'table'],
  ])('rejects %s', (_label, raw) => {
    rejects(raw);
  });
});
