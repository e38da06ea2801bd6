/**
 * The dataset as raw rows for the baselines: one row per hit with its UTC time, path,
 * class and visitor number, written once to a CSV under bench/.data and reused, so a
 * baseline engine loads it with its own bulk reader.
 */
import { createWriteStream, existsSync } from 'node:fs';
import { mkdir, rename } from 'node:fs/promises';
import { once } from 'node:events';
import { join } from 'node:path';
import { datasetKey, type AnalyticsDataset } from './analytics-dataset.js';

export const RAW_ROW_COLUMNS = ['ts', 'path', 'class', 'visitor'] as const;

/** Writes (or finds) the CSV of `dataset`'s hits; returns its path. */
export async function writeRawRowsCsv(dataset: AnalyticsDataset, dataDir: string): Promise<string> {
  const file = join(dataDir, `analytics-rows-${datasetKey(dataset)}.csv`);
  if (existsSync(file)) return file;
  await mkdir(dataDir, { recursive: true });
  const partial = `${file}.partial`;
  const output = createWriteStream(partial);
  output.write(`${RAW_ROW_COLUMNS.join(',')}\n`);
  let chunk = '';
  for (const hit of dataset.hits()) {
    // Generated paths never hold a comma, quote or line break, so no field needs quoting.
    chunk += `${new Date(hit.timestamp).toISOString()},${hit.path},${hit.visitorClass},${hit.visitor}\n`;
    if (chunk.length >= 1 << 20) {
      if (!output.write(chunk)) await once(output, 'drain');
      chunk = '';
    }
  }
  output.end(chunk);
  await once(output, 'close');
  await rename(partial, file);
  return file;
}
