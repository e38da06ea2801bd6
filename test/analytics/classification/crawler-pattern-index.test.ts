import { describe, expect, test } from 'vitest';
import crawlers from 'crawler-user-agents';
import { createCrawlerPatternIndex } from '../../../src/analytics/classification/crawler-pattern-index.js';

/** The obvious, slow answer: run every pattern and keep the leftmost match, first pattern on ties. */
function naiveFind(expressions: RegExp[], userAgent: string): { pattern: number; start: number; text: string } | null {
  let best: { pattern: number; start: number; text: string } | null = null;
  expressions.forEach((expression, pattern) => {
    const found = expression.exec(userAgent);
    if (found !== null && (best === null || found.index < best.start)) best = { pattern, start: found.index, text: found[0] };
  });
  return best;
}

describe('createCrawlerPatternIndex', () => {
  const patterns = crawlers.map((crawler) => crawler.pattern);
  const expressions = patterns.map((pattern) => new RegExp(pattern));
  const index = createCrawlerPatternIndex(patterns);

  test('finds exactly what running every crawler-user-agents pattern finds, on all documented instances', () => {
    const instances = crawlers.flatMap((crawler) => crawler.instances);
    expect(instances.length).toBeGreaterThan(1000);
    for (const instance of instances) expect(index.find(instance), instance).toEqual(naiveFind(expressions, instance));
  });

  test('finds nothing in ordinary browsers', () => {
    for (const userAgent of [
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10.15; rv:131.0) Gecko/20100101 Firefox/131.0',
    ]) {
      expect(index.find(userAgent)).toBeNull();
      expect(naiveFind(expressions, userAgent)).toBeNull();
    }
  });

  test('runs patterns without a usable literal (alternations) too', () => {
    const small = createCrawlerPatternIndex(['Foo|Bar', 'Bazbot\\/']);
    expect(small.find('x Bar y')).toEqual({ pattern: 0, start: 2, text: 'Bar' });
    expect(small.find('Bazbot/1')).toEqual({ pattern: 1, start: 0, text: 'Bazbot/' });
    expect(small.find('bazbot/1')).toBeNull(); // patterns stay case-sensitive; only the prefilter ignores case
  });

  test('skips patterns this engine cannot compile', () => {
    const small = createCrawlerPatternIndex(['(unclosed', 'Okbot']);
    expect(small.find('Okbot')).toEqual({ pattern: 1, start: 0, text: 'Okbot' });
  });
});
