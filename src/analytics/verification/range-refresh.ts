import { readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Clock } from '../../core/clock.js';
import { guardedFetch, type AddressResolver } from './guarded-fetch.js';
import { parsePrefixesJson, rangeFileSchema, shippedRangeFile, type RangeFile } from './range-catalog.js';

/** Where refreshed ranges are kept, in the data directory; the shipped file is the fallback. */
export const RANGES_FILE_NAME = 'agent-ranges.json';

export interface RangeRefreshOptions {
  clock: Clock;
  /** Fetch each list from `${from}/${set id}.json` instead of its operator (a mirror, or a fake server in tests). Trusted: it may be on a private address or plain http. */
  from?: string;
  /** Per list. Default 4 MiB and 15 s. */
  maxBytes?: number;
  timeoutMs?: number;
  allowLoopback?: boolean;
  resolve?: AddressResolver;
}

export interface RangeRefreshResult {
  file: RangeFile;
  lists: Array<{ id: string; url: string; ok: true; prefixes: number } | { id: string; url: string; ok: false; error: string }>;
}

/**
 * Fetches every operator's current list. A list that fails keeps what the file had, so
 * one operator's outage never empties another's ranges, nor its own.
 */
export async function refreshRanges(current: RangeFile, options: RangeRefreshOptions): Promise<RangeRefreshResult> {
  const fetchedAt = new Date(options.clock.now()).toISOString();
  const lists: RangeRefreshResult['lists'] = [];
  const sets = await Promise.all(
    current.sets.map(async (set) => {
      const url = options.from === undefined ? set.url : `${options.from.replace(/\/$/, '')}/${set.id}.json`;
      try {
        const response = await guardedFetch(url, {
          maxBytes: options.maxBytes ?? 4 * 1024 * 1024,
          timeoutMs: options.timeoutMs ?? 15_000,
          allowLoopback: options.allowLoopback === true,
          trusted: options.from !== undefined,
          ...(options.resolve === undefined ? {} : { resolve: options.resolve }),
        });
        if (response.status !== 200) throw new Error(`answered ${response.status}`);
        const parsed = parsePrefixesJson(response.body);
        if ('error' in parsed) throw new Error(parsed.error);
        if (parsed.prefixes.length === 0) throw new Error('the list is empty');
        lists.push({ id: set.id, url, ok: true, prefixes: parsed.prefixes.length });
        return { ...set, prefixes: parsed.prefixes, fetchedAt, complete: true };
      } catch (error) {
        lists.push({ id: set.id, url, ok: false, error: error instanceof Error ? error.message : String(error) });
        return set;
      }
    }),
  );
  lists.sort((a, b) => a.id.localeCompare(b.id));
  const changed = lists.some((list) => list.ok);
  return { file: { ...current, version: changed ? fetchedAt : current.version, sets }, lists };
}

/** The refreshed file in the data directory when there is a valid one, else the shipped ranges. */
export async function loadRangeFile(dataDir: string | null): Promise<RangeFile> {
  return (dataDir === null ? null : await readRangeFile(dataDir)) ?? shippedRangeFile();
}

/** The refreshed file in the data directory; null when it is missing, unreadable or invalid. */
export async function readRangeFile(dataDir: string): Promise<RangeFile | null> {
  try {
    const parsed = rangeFileSchema.safeParse(JSON.parse(await readFile(join(dataDir, RANGES_FILE_NAME), 'utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** Writes atomically (a temporary file renamed over), so a reader never sees half a file. */
export async function saveRangeFile(dataDir: string, file: RangeFile): Promise<string> {
  const target = join(dataDir, RANGES_FILE_NAME);
  const temporary = `${target}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(file, null, 1)}\n`, 'utf8');
  await rename(temporary, target);
  return target;
}
