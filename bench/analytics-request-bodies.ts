/**
 * The ingest request bodies of a dataset, serialized once into a cache file under
 * bench/.data (like the DuckDB CSV beside it) and read back in order. Building a body
 * costs the load generator about 2 µs of CPU per hit, on the same two cores the server
 * uses; reading a ready one costs a copy. So the ingest figures are the server's, for the
 * whole load and not only for a pre-serialized first million.
 *
 * Format: per request, a 4-byte little-endian length, then that many bytes of JSON
 * (`{"events":[…]}`, EVENTS_PER_REQUEST hits, the last one possibly fewer).
 */
import { closeSync, createWriteStream, existsSync, openSync, readSync } from 'node:fs';
import { mkdir, rename } from 'node:fs/promises';
import { once } from 'node:events';
import { join } from 'node:path';
import { datasetKey, toEvent, type AnalyticsDataset } from './analytics-dataset.js';

/** The body of hits [from, to) of `dataset`, as the events endpoint takes it. */
export function eventsBody(dataset: AnalyticsDataset, from: number, to: number): Buffer {
  const events = [];
  for (const hit of dataset.hits(from, to)) events.push(toEvent(hit));
  return Buffer.from(JSON.stringify({ events }));
}

/** Writes (or finds) the body cache of `dataset`, `perRequest` hits a body; returns its path. */
export async function writeRequestBodies(dataset: AnalyticsDataset, dataDir: string, perRequest: number): Promise<string> {
  const file = join(dataDir, `analytics-bodies-${datasetKey(dataset)}-${perRequest}.bin`);
  if (existsSync(file)) return file;
  await mkdir(dataDir, { recursive: true });
  const partial = `${file}.partial`;
  const output = createWriteStream(partial);
  for (let start = 0; start < dataset.spec.hits; start += perRequest) {
    const body = eventsBody(dataset, start, Math.min(dataset.spec.hits, start + perRequest));
    const length = Buffer.alloc(4);
    length.writeUInt32LE(body.length);
    output.write(length);
    if (!output.write(body)) await once(output, 'drain');
  }
  output.end();
  await once(output, 'close');
  // Renamed only once complete: an interrupted run leaves no truncated cache behind.
  await rename(partial, file);
  return file;
}

/**
 * Reads bodies [from / perRequest, to / perRequest) of a cache file in order, one at a
 * time (synchronous reads: a body is a few hundred KB from the page cache, and the load
 * generator asks for the next one only when a client is free).
 */
export class RequestBodyReader {
  private readonly fd: number;
  private position = 0;
  private remaining: number;

  constructor(file: string, from: number, to: number, perRequest: number) {
    if (from % perRequest !== 0) throw new Error(`a body cache is read from a multiple of ${perRequest} hits (got ${from})`);
    this.fd = openSync(file, 'r');
    for (let skip = from / perRequest; skip > 0; skip--) this.position += 4 + this.length();
    this.remaining = Math.ceil((to - from) / perRequest);
  }

  next(): Buffer | undefined {
    if (this.remaining === 0) return undefined;
    this.remaining--;
    const length = this.length();
    const body = Buffer.allocUnsafe(length);
    if (readSync(this.fd, body, 0, length, this.position + 4) !== length) throw new Error('the body cache ends early');
    this.position += 4 + length;
    return body;
  }

  close(): void {
    closeSync(this.fd);
  }

  private length(): number {
    const header = Buffer.alloc(4);
    if (readSync(this.fd, header, 0, 4, this.position) !== 4) throw new Error('the body cache ends early');
    return header.readUInt32LE(0);
  }
}
