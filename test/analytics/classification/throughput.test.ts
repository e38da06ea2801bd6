import { describe, expect, test } from 'vitest';
import { readFileSync } from 'node:fs';
import { createHitClassifier, type HitInput } from '../../../src/analytics/classification/classify-hit.js';

// Classification runs once per ingested hit. These bounds sit far below what a laptop does
// (millions per second from the cache, ~100k/s on cache misses) so that a loaded CI machine
// passes, while a regression to per-pattern scanning (a few thousand per second) fails.
const fixture = JSON.parse(readFileSync(new URL('../../fixtures/user-agents.json', import.meta.url), 'utf8')) as {
  userAgent: string;
}[];

function perSecond(count: number, classify: (index: number) => void): number {
  for (let index = 0; index < Math.min(count, 2_000); index++) classify(index); // warm up the JIT
  const started = performance.now();
  for (let index = 0; index < count; index++) classify(index);
  return (count / (performance.now() - started)) * 1000;
}

describe('classification throughput', () => {
  test('a realistic mix of repeating user agents classifies at well over 200k hits per second', () => {
    const classifier = createHitClassifier();
    const inputs: HitInput[] = fixture.map((entry, index) => ({
      userAgent: entry.userAgent,
      path: index % 10 === 0 ? '/docs/intro.md' : '/docs/intro',
      accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
    }));
    const rate = perSecond(400_000, (index) => classifier.classify(inputs[index % inputs.length] as HitInput));
    expect(rate).toBeGreaterThan(200_000);
  });

  test('never-seen user agents still classify at tens of thousands per second', () => {
    const classifier = createHitClassifier();
    const rate = perSecond(20_000, (index) => {
      const userAgent =
        index % 2 === 0
          ? `Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.${index}.0 Safari/537.36`
          : `Mozilla/5.0 (compatible; ExampleCrawler/${index}.0; +https://example.com/bot)`;
      classifier.classify({ userAgent, path: '/docs' });
    });
    expect(rate).toBeGreaterThan(30_000);
  });
});
