import { describe, expect, test } from 'vitest';
import { createHash } from 'node:crypto';
import { AnalyticsDataset, datasetKey, datasetSpec, FULL_DATASET, toEvent, zipfCumulative, type AnalyticsDatasetSpec } from '../../bench/analytics-dataset.js';
import { createHitClassifier } from '../../src/analytics/classification/classify-hit.js';

const SMALL: AnalyticsDatasetSpec = { ...FULL_DATASET, hits: 20_000, visitors: 2_000, pages: 400 };

function digest(dataset: AnalyticsDataset, from = 0, to = dataset.spec.hits): string {
  const hash = createHash('sha256');
  for (const hit of dataset.hits(from, to)) hash.update(JSON.stringify(hit));
  return hash.digest('hex');
}

describe('AnalyticsDataset', () => {
  test('gives the same hits every time, and other hits for another seed', () => {
    expect(digest(new AnalyticsDataset(SMALL))).toBe(digest(new AnalyticsDataset(SMALL)));
    expect(digest(new AnalyticsDataset({ ...SMALL, seed: SMALL.seed + 1 }))).not.toBe(digest(new AnalyticsDataset(SMALL)));
  });

  test('computes any range on its own, equal to the same slice of the whole stream', () => {
    const dataset = new AnalyticsDataset(SMALL);
    const all = [...dataset.hits()];
    expect(all).toHaveLength(SMALL.hits);
    expect([...dataset.hits(12_345, 12_400)]).toEqual(all.slice(12_345, 12_400));
    const batches = [...dataset.batches(1000, 500, 3_700)];
    expect(batches.map((batch) => batch.length)).toEqual([1000, 1000, 1000, 200]);
    expect(batches.flat()).toEqual(all.slice(500, 3_700));
  });

  test('has exactly the requested visitors, 15% of them AI, each with one user agent and address', () => {
    const dataset = new AnalyticsDataset(SMALL);
    const visitors = new Map<number, { userAgent: string; ip: string; visitorClass: string }>();
    for (const hit of dataset.hits()) {
      const known = visitors.get(hit.visitor);
      if (known === undefined) visitors.set(hit.visitor, { userAgent: hit.userAgent, ip: hit.ip, visitorClass: hit.visitorClass });
      else expect({ userAgent: hit.userAgent, ip: hit.ip, visitorClass: hit.visitorClass }).toEqual(known);
    }
    expect(visitors.size).toBe(SMALL.visitors);
    expect([...visitors.values()].filter((visitor) => visitor.visitorClass === 'ai')).toHaveLength(300);
    // The server tells visitors apart by address and user agent, so those pairs must be distinct too.
    expect(new Set([...visitors.values()].map((visitor) => `${visitor.ip} ${visitor.userAgent}`)).size).toBe(SMALL.visitors);
  });

  test("uses real user agents that Docwright's classifier puts in the visitor's class", () => {
    const dataset = new AnalyticsDataset(SMALL);
    const classifier = createHitClassifier();
    const agents = new Set<string>();
    for (const hit of dataset.hits(0, 5_000)) {
      expect(classifier.classify({ userAgent: hit.userAgent, path: hit.path }).class).toBe(hit.visitorClass);
      agents.add(hit.userAgent);
    }
    expect(agents.size).toBeGreaterThan(50);
  });

  test('spreads hits over the days in time order', () => {
    const dataset = new AnalyticsDataset(SMALL);
    let previous = Number.NEGATIVE_INFINITY;
    const days = new Set<string>();
    for (const hit of dataset.hits()) {
      expect(hit.timestamp).toBeGreaterThanOrEqual(previous);
      previous = hit.timestamp;
      days.add(new Date(hit.timestamp).toISOString().slice(0, 10));
    }
    expect(days.size).toBe(30);
    expect([...days].sort()[0]).toBe('2026-09-01');
    expect(previous).toBeLessThan(dataset.end);
  });

  test('draws pages with Zipf popularity over distinct paths', () => {
    const dataset = new AnalyticsDataset(SMALL);
    expect(new Set(dataset.paths).size).toBe(SMALL.pages);
    const perPath = new Map<string, number>();
    for (const hit of dataset.hits()) perPath.set(hit.path, (perPath.get(hit.path) ?? 0) + 1);
    const counts = [...perPath.values()].sort((a, b) => b - a);
    const cumulative = zipfCumulative(SMALL.pages, SMALL.zipfExponent);
    const topShare = cumulative[0] ?? 0;
    expect((counts[0] ?? 0) / SMALL.hits).toBeGreaterThan(topShare * 0.9);
    expect((counts[0] ?? 0) / SMALL.hits).toBeLessThan(topShare * 1.1);
    // Rank 10 gets 1/10^1.1 of rank 1.
    expect((counts[9] ?? 0) / (counts[0] ?? 1)).toBeGreaterThan(0.05);
    expect((counts[9] ?? 0) / (counts[0] ?? 1)).toBeLessThan(0.12);
  });

  test('scales hits and visitors, keeps pages and days, and names each spec apart', () => {
    expect(datasetSpec(1)).toEqual(FULL_DATASET);
    expect(datasetSpec(0.1)).toMatchObject({ hits: 1_000_000, visitors: 100_000, pages: 5_000, days: 30 });
    expect(() => datasetSpec(0)).toThrow();
    expect(datasetKey({ spec: datasetSpec(0.1) })).not.toBe(datasetKey({ spec: datasetSpec(0.2) }));
  });

  test('turns a hit into the events endpoint shape', () => {
    const hit = new AnalyticsDataset(SMALL).hit(7);
    const event = toEvent(hit);
    expect(event).toMatchObject({ path: hit.path, userAgent: hit.userAgent, ip: hit.ip });
    expect(Date.parse(event.timestamp)).toBe(hit.timestamp);
    expect(Object.keys(event)).not.toContain('visitor');
  });
});
