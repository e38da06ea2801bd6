import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { AnalyticsDataset, datasetSpec } from '../../bench/analytics-dataset.js';
import { eventsBody, RequestBodyReader, writeRequestBodies } from '../../bench/analytics-request-bodies.js';

const dataDir = mkdtempSync(join(tmpdir(), 'docwright-bench-bodies-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

test('the body cache holds the bodies the load generator would build, read from any request boundary', async () => {
  const dataset = new AnalyticsDataset(datasetSpec(0.00001));
  const hits = dataset.spec.hits;
  const file = await writeRequestBodies(dataset, dataDir, 7);
  // Written once: a second call finds the file.
  expect(await writeRequestBodies(dataset, dataDir, 7)).toBe(file);
  const reader = new RequestBodyReader(file, 14, hits, 7);
  try {
    for (let start = 14; start < hits; start += 7) expect(reader.next()).toEqual(eventsBody(dataset, start, Math.min(hits, start + 7)));
    expect(reader.next()).toBeUndefined();
  } finally {
    reader.close();
  }
  expect(() => new RequestBodyReader(file, 3, hits, 7)).toThrow(/multiple of 7/);
});
