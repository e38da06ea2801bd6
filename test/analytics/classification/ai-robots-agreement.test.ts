import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { classifyHit } from '../../../src/analytics/classification/classify-hit.js';

/**
 * Agreement with ai.robots.txt's robots.json (pinned: test/fixtures/ai-robots-txt/robots.json,
 * how it was made is in its "about"). Every entry it files under AI Assistants, AI Agents or
 * AI Coding Agents must count as `ai`; every search crawler, data scraper, data provider or
 * training crawler as neither human nor `ai`; the undocumented ones at least not as human.
 * Exceptions are listed below with their reason (docs/classification.md, "ai.robots.txt").
 */
interface PinnedRobots {
  date: string;
  commit: string;
  entries: Array<{ name: string; function: string }>;
}

type Family = 'ai' | 'crawler' | 'other';

const pinned = JSON.parse(readFileSync(new URL('../../fixtures/ai-robots-txt/robots.json', import.meta.url), 'utf8')) as PinnedRobots;

const FAMILY_OF_FUNCTION: Readonly<Record<string, Family>> = {
  'AI Assistants': 'ai',
  'AI Agents': 'ai',
  'AI Coding Agents': 'ai',
  'AI Search Crawlers': 'crawler',
  'AI Data Scrapers': 'crawler',
  'AI Data Providers': 'crawler',
  'Undocumented AI Agents': 'other',
};

/**
 * Older entries describe their function in prose; this is our reading of it. User-triggered
 * fetchers are `ai`; indexing, scraping and training are `crawler`; the rest `other`.
 */
const FAMILY_OF_PROSE: Readonly<Record<string, Family>> = {
  'cohere-ai': 'ai',
  'MistralAI-User/1.0': 'ai',
  BuddyBot: 'other',
  'Google-Firebase': 'other',
  OpenAI: 'other',
  QuillBot: 'other',
  'quillbot.com': 'other',
  'SemrushBot-SWA': 'other',
  wpbot: 'other',
};

/** Entries filed as assistants that index a site ahead of time rather than fetch for a person's request. */
const INDEXERS_FILED_AS_ASSISTANTS: Readonly<Record<string, string>> = {
  'amazon-QBusiness': 'indexes sites into Amazon Q Business applications ahead of the questions',
  'bigsur.ai': "crawls a customer's site to build its sales assistant",
  KlaviyoAIBot: "indexes domains connected to a Klaviyo account on change signals, for Klaviyo's customer agent",
  QualifiedBot: "crawls a customer's own site to ground its chatbot",
  'meta-webindexer': 'Meta documents Meta-WebIndexer as the crawler that improves Meta AI search results (an indexer)',
};

/** Entries whose user agent people send too, so a hit carrying it cannot be counted as the agent. */
const SHARED_WITH_PEOPLE: Readonly<Record<string, string>> = {
  Code: "VS Code's own user agent (Code/<version>): Copilot's fetch tool sends it, and so do the editor's webviews people read docs in",
};

const familyOf = (entry: { name: string; function: string }): Family => FAMILY_OF_FUNCTION[entry.function] ?? FAMILY_OF_PROSE[entry.name] ?? 'crawler';

/** One hit per entry: a crawler-style user agent carrying its name. */
function classify(name: string) {
  const product = name.includes('/') ? name : `${name}/1.0`;
  return classifyHit({ userAgent: `Mozilla/5.0 (compatible; ${product}; +https://example.com/bot)`, path: '/docs/start', accept: 'text/html' });
}

describe("agreement with ai.robots.txt's robots.json", () => {
  test('the pinned copy is the one the issue describes: 166 entries, 43 assistants, agents and coding agents', () => {
    expect(pinned.date).toBe('2026-08-22');
    expect(pinned.entries).toHaveLength(166);
    expect(new Set(pinned.entries.map((entry) => entry.name)).size).toBe(166);
    expect(pinned.entries.filter((entry) => FAMILY_OF_FUNCTION[entry.function] === 'ai')).toHaveLength(43);
    // Every prose reading names an entry that exists and is prose.
    for (const name of Object.keys(FAMILY_OF_PROSE)) {
      const entry = pinned.entries.find((candidate) => candidate.name === name);
      expect(entry?.function, name).toBeDefined();
      expect(FAMILY_OF_FUNCTION[entry!.function], name).toBeUndefined();
    }
  });

  test('every assistant, agent and coding agent counts as ai, apart from the indexers filed as assistants', () => {
    const assistants = pinned.entries.filter((entry) => familyOf(entry) === 'ai');
    const notAi = assistants.filter((entry) => classify(entry.name).class !== 'ai').map((entry) => entry.name);
    expect(notAi.sort()).toEqual([...Object.keys(INDEXERS_FILED_AS_ASSISTANTS), ...Object.keys(SHARED_WITH_PEOPLE)].sort());
    // The indexers are still AI crawlers, never humans or plain bots.
    for (const name of Object.keys(INDEXERS_FILED_AS_ASSISTANTS)) expect(classify(name).class, name).toBe('ai-search');
    // Each one that is ai carries a named agent and a category of the spec's ai.
    for (const entry of assistants.filter((candidate) => !notAi.includes(candidate.name))) {
      const result = classify(entry.name);
      expect(result.agent, entry.name).not.toBeNull();
      expect(['ai-assistant', 'ai-agent', 'ai-coding-agent'], entry.name).toContain(result.category);
    }
  });

  test('every search crawler, scraper, data provider and training crawler is neither human nor ai', () => {
    const crawlers = pinned.entries.filter((entry) => familyOf(entry) === 'crawler');
    expect(crawlers.length).toBeGreaterThanOrEqual(100);
    const wrong = crawlers
      .map((entry) => [entry.name, classify(entry.name).class] as const)
      .filter(([, hitClass]) => hitClass === 'human' || hitClass === 'ai');
    expect(wrong).toEqual([]);
  });

  test('the undocumented and other AI agents never count as human', () => {
    for (const entry of pinned.entries.filter((candidate) => familyOf(candidate) === 'other')) expect(classify(entry.name).class, entry.name).not.toBe('human');
  });
});
