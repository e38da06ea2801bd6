// Shared by the importLogs tests: log files in a temporary directory and a recording `send`.
import { afterAll } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importLogs } from '../../../src/analytics/import/import-logs.js';
import type { ImportHit, ImportOptions, SendResult } from '../../../src/analytics/import/import-types.js';

export const directory = mkdtempSync(join(tmpdir(), 'docwright-import-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

let fileCounter = 0;
export function writeLog(name: string, content: string | Buffer): string {
  const file = join(directory, `${fileCounter++}-${name}`);
  writeFileSync(file, content);
  return file;
}

export interface LineFields {
  ip?: string;
  second?: number;
  method?: string;
  path?: string;
  status?: number;
  agent?: string;
}

export function combined({
  ip = '203.0.113.5',
  second = 0,
  method = 'GET',
  path = '/docs',
  status = 200,
  agent = 'Mozilla/5.0 Firefox/133.0',
}: LineFields = {}): string {
  const time = new Date(Date.UTC(2025, 0, 1) + second * 1000);
  const clock = time.toISOString().slice(11, 19);
  return `${ip} - - [${String(time.getUTCDate()).padStart(2, '0')}/Jan/2025:${clock} +0000] "${method} ${path} HTTP/1.1" ${status} 512 "-" "${agent}"`;
}

/** A log of `count` page views with distinct paths, one per second. */
export function pageViews(count: number, offset = 0): string {
  return Array.from({ length: count }, (_, index) => combined({ second: offset + index, path: `/docs/page-${offset + index}` })).join('\n') + '\n';
}

/** A `send` that records every batch and answers like the events endpoint would. */
export function recordingSend(): { batches: ImportHit[][]; send: (hits: ImportHit[]) => Promise<SendResult> } {
  const batches: ImportHit[][] = [];
  return {
    batches,
    send: async (hits) => {
      batches.push(hits);
      return { accepted: hits.length, rejected: 0 };
    },
  };
}

export async function run(
  options: Omit<ImportOptions, 'send'>,
): Promise<{ hits: ImportHit[]; batches: ImportHit[][]; summary: Awaited<ReturnType<typeof importLogs>> }> {
  const recorder = recordingSend();
  const summary = await importLogs({ ...options, send: recorder.send });
  return { hits: recorder.batches.flat(), batches: recorder.batches, summary };
}
