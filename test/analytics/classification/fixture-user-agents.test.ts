import { describe, expect, test } from 'vitest';
import { readFileSync } from 'node:fs';
import { classifyHit } from '../../../src/analytics/classification/classify-hit.js';
import { HIT_CLASSES, isHitClass, type HitClass } from '../../../src/analytics/classification/hit-class.js';

interface FixtureEntry {
  userAgent: string;
  expected: HitClass;
  source: string;
  agent?: string;
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
      expect(() => new URL(entry.source)).not.toThrow();
      expect(entry.source).toMatch(/^https:\/\//);
    }
    const perClass = new Map<HitClass, number>();
    for (const entry of fixture) perClass.set(entry.expected, (perClass.get(entry.expected) ?? 0) + 1);
    for (const hitClass of HIT_CLASSES) expect(perClass.get(hitClass) ?? 0).toBeGreaterThanOrEqual(10);
  });

  test.each(fixture.map((entry) => [entry.expected, entry.userAgent, entry] as const))('%s: %s', (_expected, userAgent, entry) => {
    const result = classifyHit({ userAgent, path: '/docs/getting-started', accept: BROWSER_ACCEPT });
    expect(result.class).toBe(entry.expected);
    if (entry.agent !== undefined) expect(result.agent).toBe(entry.agent);
    if (entry.expected === 'human') expect(result).toEqual({ class: 'human', agent: null, operator: null });
    if (entry.expected === 'ai' || entry.expected === 'ai-search' || entry.expected === 'ai-training') {
      expect(result.operator).not.toBeNull();
    }
  });
});
