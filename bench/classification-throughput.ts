import { readFileSync } from 'node:fs';
import { createHitClassifier, type HitInput } from '../src/analytics/classification/classify-hit.js';

/**
 * Classification runs once per ingested hit. Measures hits/s for a realistic mix of
 * repeating user agents (the cache path) and for never-seen ones (the full matcher).
 * Run alone: npx tsx bench/classification-throughput.ts
 */
const fixture = JSON.parse(readFileSync(new URL('../test/fixtures/user-agents.json', import.meta.url), 'utf8')) as Array<{ userAgent: string }>;

function perSecond(count: number, classify: (index: number) => void): number {
  for (let index = 0; index < Math.min(count, 2_000); index++) classify(index);
  const started = performance.now();
  for (let index = 0; index < count; index++) classify(index);
  return (count / (performance.now() - started)) * 1000;
}

export interface ClassificationThroughput {
  cachedPerSecond: number;
  uncachedPerSecond: number;
}

export function runClassificationThroughput(scale = 1): ClassificationThroughput {
  const classifier = createHitClassifier();
  const inputs: HitInput[] = fixture.map((entry, index) => ({
    userAgent: entry.userAgent,
    path: index % 10 === 0 ? '/docs/intro.md' : '/docs/intro',
    accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
  }));
  const cachedPerSecond = perSecond(Math.max(10_000, Math.round(1_000_000 * scale)), (index) => classifier.classify(inputs[index % inputs.length]!));
  const fresh = createHitClassifier();
  const uncachedPerSecond = perSecond(Math.max(2_000, Math.round(50_000 * scale)), (index) => {
    const userAgent =
      index % 2 === 0
        ? `Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.${index}.0 Safari/537.36`
        : `Mozilla/5.0 (compatible; ExampleCrawler/${index}.0; +https://example.com/bot)`;
    fresh.classify({ userAgent, path: '/docs' });
  });
  return { cachedPerSecond, uncachedPerSecond };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = runClassificationThroughput();
  console.log(
    `classification: ${Math.round(result.cachedPerSecond).toLocaleString()} hits/s (repeating user agents), ${Math.round(result.uncachedPerSecond).toLocaleString()} hits/s (never-seen)`,
  );
}
