import { describe, expect, test } from 'vitest';
import { readFileSync } from 'node:fs';
import { classifyHit } from '../../../src/analytics/classification/classify-hit.js';
import { HIT_CLASSES, isHitClass, type HitClass } from '../../../src/analytics/classification/hit-class.js';
import { HIT_CATEGORIES, isHitCategory, type HitCategory } from '../../../src/analytics/classification/hit-category.js';

interface FixtureEntry {
  userAgent: string;
  expected: HitClass;
  category: HitCategory;
  source: string;
  agent?: string;
  /**
   * True when no captured string was at hand: the user agent is the product token in the
   * form its source documents (docs/classification.md, "The fixture").
   */
  tokenForm?: boolean;
}

const fixturePath = new URL('../../fixtures/user-agents.json', import.meta.url);
const fixture = JSON.parse(readFileSync(fixturePath, 'utf8')) as FixtureEntry[];

// What a browser sends when it navigates to a page, so Accept cannot turn a hit into `ai`.
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

describe('the real user-agent fixture', () => {
  test('holds at least 200 distinct, sourced strings covering every class', () => {
    expect(fixture.length).toBeGreaterThanOrEqual(200);
    expect(new Set(fixture.map((entry) => entry.userAgent)).size).toBe(fixture.length);
    for (const entry of fixture) {
      expect(typeof entry.userAgent).toBe('string');
      expect(entry.userAgent.trim().length).toBeGreaterThan(0);
      expect(isHitClass(entry.expected)).toBe(true);
      expect(isHitCategory(entry.category)).toBe(true);
      expect(() => new URL(entry.source)).not.toThrow();
      expect(entry.source).toMatch(/^https:\/\//);
    }
    const perClass = new Map<HitClass, number>();
    for (const entry of fixture) perClass.set(entry.expected, (perClass.get(entry.expected) ?? 0) + 1);
    for (const hitClass of HIT_CLASSES) expect(perClass.get(hitClass) ?? 0).toBeGreaterThanOrEqual(10);
    // Every category a user agent alone can earn (ai-other is a Markdown fetch by an unnamed client).
    const categories = new Set(fixture.map((entry) => entry.category));
    for (const category of HIT_CATEGORIES.filter((name) => name !== 'ai-other')) expect(categories, category).toContain(category);
    // Most strings were captured from real traffic; the token-form ones are the exception.
    expect(fixture.filter((entry) => entry.tokenForm === true).length).toBeLessThan(fixture.length / 10);
  });

  test.each(fixture.map((entry) => [entry.expected, entry.userAgent, entry] as const))('%s: %s', (_expected, userAgent, entry) => {
    const result = classifyHit({ userAgent, path: '/docs/getting-started', accept: BROWSER_ACCEPT });
    expect(result.class).toBe(entry.expected);
    expect(result.category).toBe(entry.category);
    if (entry.agent !== undefined) expect(result.agent).toBe(entry.agent);
    if (entry.expected === 'human') expect(result).toEqual({ class: 'human', agent: null, operator: null, category: 'human' });
    if (entry.expected === 'ai' || entry.expected === 'ai-search' || entry.expected === 'ai-training') {
      expect(result.operator).not.toBeNull();
    }
  });
});
