import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { HitBatch } from '../../../src/analytics/analytics-store.js';
import { ClickHouseSpool, type SpoolRecord } from '../../../src/analytics/clickhouse/clickhouse-spool.js';
import { ClickHouseSpoolDrainer, type SpoolDrainPolicy } from '../../../src/analytics/clickhouse/clickhouse-spool-drainer.js';
import { decodeSpooledHits, encodeSpooledHits, keptBatch } from '../../../src/analytics/clickhouse/spooled-hits.js';
import { systemClock } from '../../../src/core/clock.js';

const payload = (text: string): Buffer => Buffer.from(text);

/** A batch of `count` hits whose columns hold their row number (so a kept row is recognisable). */
function numberedBatch(count: number): HitBatch {
  const rows = Array.from({ length: count }, (_, index) => index);
  return {
    site: 3,
    count,
    at: Float64Array.from(rows, (index) => 1_800_000_000_000 + index),
    page: Int32Array.from(rows, (index) => 100 + index),
    visitor: BigInt64Array.from(rows, (index) => BigInt(index) * 0x1_0000_0001n - 5n),
    classCode: Uint8Array.from(rows, (index) => (index % 5) + 1),
    agent: Int32Array.from(rows, (index) => index % 3),
    userAgent: Int32Array.from(rows, (index) => index * 7),
    referrer: rows.map((index) => (index % 2 === 0 ? null : `https://ref.example/${index}\t"x"`)),
    markdownAccept: Uint8Array.from(rows, (index) => index % 2),
    classifierVersion: 9,
    eventId: rows.map((index) => (index % 3 === 0 ? null : `event-${index}`)),
    category: Uint8Array.from(rows, (index) => index % 8),
    verification: Uint8Array.from(rows, (index) => index % 4),
    readKind: Uint8Array.from(rows, (index) => index % 3),
    status: Uint16Array.from(rows, (index) => (index % 4 === 0 ? 0 : 200 + index)),
    referral: Int32Array.from(rows, (index) => index % 6),
    addressBlock: rows.map((index) => (index % 2 === 0 ? null : `203.0.113.${index}/32`)),
    evidence: Uint8Array.from(rows, (index) => index % 5),
  };
}

describe('spooled batches', () => {
  test('keep exactly the chosen rows, round-trip through the payload, and refuse what this version did not write', () => {
    const batch = numberedBatch(9);
    const kept = keptBatch(batch, Int32Array.from([1, 4, 8]));
    const nonces = BigUint64Array.from([1n, 2n ** 64n - 1n, 0n]);
    const decoded = decodeSpooledHits(encodeSpooledHits({ batch: kept, nonces }));
    expect(decoded.nonces).toEqual(nonces);
    expect(decoded.batch.count).toBe(3);
    expect([...decoded.batch.page]).toEqual([101, 104, 108]);
    expect([...decoded.batch.visitor]).toEqual([1, 4, 8].map((index) => BigInt(index) * 0x1_0000_0001n - 5n));
    expect(decoded.batch.referrer).toEqual([batch.referrer[1], batch.referrer[4], batch.referrer[8]]);
    expect(decoded.batch.eventId).toEqual(['event-1', 'event-4', 'event-8']);
    expect(decoded.batch.addressBlock).toEqual([batch.addressBlock![1], null, null]);
    expect([...decoded.batch.status]).toEqual([201, 0, 0]);
    expect(decoded.batch.classifierVersion).toBe(9);
    // Typed columns are copied at their size: a column that is a view into a large buffer
    // (as batches from the ingest workers are) does not carry that buffer into the spool.
    const wide = new Float64Array(1 << 17);
    const viewed = { ...batch, at: wide.subarray(1_000, 1_009) };
    expect(encodeSpooledHits({ batch: keptBatch(viewed, Int32Array.from([1, 4, 8])), nonces }).length).toBeLessThan(2_000);

    // Every row kept (the usual case, copied column by column whole): the same batch, at its own size.
    const all = Int32Array.from({ length: 9 }, (_, index) => index);
    const whole = decodeSpooledHits(encodeSpooledHits({ batch: keptBatch(viewed, all), nonces: new BigUint64Array(9) })).batch;
    expect(whole).toEqual({ ...batch, at: Float64Array.from(viewed.at) });
    expect(encodeSpooledHits({ batch: keptBatch(viewed, all), nonces: new BigUint64Array(9) }).length).toBeLessThan(4_000);

    expect(() => decodeSpooledHits(payload('not v8 at all'))).toThrow();
    expect(() => decodeSpooledHits(encodeSpooledHits({ batch: kept, nonces: new BigUint64Array(2) }))).toThrow(/wrong length/);
    expect(() => decodeSpooledHits(encodeSpooledHits({ batch: { ...kept, page: new Int32Array(1) }, nonces }))).toThrow(/wrong length/);
  });
});

describe('ClickHouseSpool', () => {
  let directory: string;
  let file: string;
  const opened: ClickHouseSpool[] = [];
  const open = (): ClickHouseSpool => {
    const spool = new ClickHouseSpool(file);
    opened.push(spool);
    return spool;
  };
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'docwright-spool-'));
    file = join(directory, 'spool.sqlite');
  });
  afterEach(() => {
    for (const spool of opened.splice(0)) spool.close();
    rmSync(directory, { recursive: true, force: true });
  });

  test('drains take records oldest first up to a size, hold them for a lease, and delete them once written', () => {
    const spool = open();
    spool.transaction(() => {
      spool.append(1, 600, payload('a'), 1_000, ['x', 'y']);
      spool.append(2, 600, payload('b'), 1_001, []);
      spool.append(1, 600, payload('c'), 1_002, ['z']);
    });
    expect(spool.pendingHits()).toBe(1_800);
    expect(spool.backlog(2_000)).toEqual({ hits: 1_800, oldestAddedAt: 1_000, claimedRecords: 0 });
    const first = spool.take(1_000, 2_000, 500);
    // At least one record, and no more once the next would pass the size.
    expect(first.map((record) => record.payload.toString())).toEqual(['a']);
    const second = spool.take(1_200, 2_000, 500);
    expect(second.map((record) => record.payload.toString())).toEqual(['b', 'c']);
    expect(spool.take(10_000, 2_000, 500)).toEqual([]);
    expect(spool.backlog(2_000)).toEqual({ hits: 0, oldestAddedAt: null, claimedRecords: 3 });
    expect(spool.spooledEventIds(1, ['x', 'z', 'w'])).toEqual(expect.arrayContaining(['x', 'z']));
    expect(spool.spooledEventIds(2, ['x'])).toEqual([]);

    spool.complete(first.map((record) => record.id));
    expect(spool.spooledEventIds(1, ['x', 'y', 'z'])).toEqual(['z']);
    spool.release([second[0]!.id]);
    expect(spool.take(10_000, 2_000, 500).map((record) => record.payload.toString())).toEqual(['b']);
    // A lease that ran out (a drain that died) lets another drain take the record again.
    expect(spool.take(10_000, 2_499, 500)).toEqual([]);
    expect(spool.take(10_000, 2_500, 500).map((record) => record.payload.toString())).toEqual(['b', 'c']);
    expect(spool.hasAtOrBefore(second[1]!.id)).toBe(true);
    spool.complete(second.map((record) => record.id));
    expect(spool.hasAtOrBefore(spool.lastId())).toBe(false);
    expect(spool.pendingHits()).toBe(0);
  });

  test('what one process spooled survives it, and two processes sharing the file never take the same record', () => {
    const writer = open();
    writer.transaction(() => {
      for (let index = 0; index < 20; index++) writer.append(1, 10, payload(`r${index}`), 1_000 + index, [`e${index}`]);
    });
    writer.close();
    const one = open();
    const two = open();
    expect(one.pendingHits()).toBe(200);
    const taken: SpoolRecord[] = [];
    for (let round = 0; round < 10; round++) taken.push(...one.take(30, 5_000, 60_000), ...two.take(30, 5_000, 60_000));
    expect(taken.map((record) => record.payload.toString()).sort()).toEqual(Array.from({ length: 20 }, (_, index) => `r${index}`).sort());
    expect(new Set(taken.map((record) => record.id)).size).toBe(20);
  });

  test('a record that cannot be read is set aside with its reason, out of the way of the drain', () => {
    const spool = open();
    let id = 0;
    spool.transaction(() => {
      id = spool.append(4, 2, payload('garbage'), 1_000, ['e']);
    });
    spool.reject(id, 'not a spooled batch', 2_000);
    expect(spool.pendingHits()).toBe(0);
    expect(spool.spooledEventIds(4, ['e'])).toEqual([]);
    expect(spool.take(10, 3_000, 10)).toEqual([]);
    // The payload is kept, with why, for whoever inspects the file.
    const inspector = new BetterSqlite3(file, { readonly: true });
    try {
      expect(inspector.prepare('select id, site, hits, reason, rejected_at, cast(payload as text) as payload from rejected_spooled_hits').all()).toEqual([
        { id, site: 4, hits: 2, reason: 'not a spooled batch', rejected_at: 2_000, payload: 'garbage' },
      ]);
    } finally {
      inspector.close();
    }
  });
});

describe('ClickHouseSpoolDrainer', () => {
  const policy: SpoolDrainPolicy = { minHits: 100, maxDelayMs: 60_000, maxHits: 1_000, leaseMs: 60_000, retryMs: 10 };
  let spool: ClickHouseSpool;
  beforeEach(() => {
    spool = new ClickHouseSpool(':memory:');
  });
  afterEach(() => spool.close());

  const add = (hits: number, text: string): void => spool.transaction(() => void spool.append(1, hits, payload(text), systemClock.now(), []));

  test('flush writes what was added before it; a failed write fails the flush and keeps the records for the next try', async () => {
    const written: string[] = [];
    let failNext = 1;
    const errors: unknown[] = [];
    const drainer = new ClickHouseSpoolDrainer(
      spool,
      async (records) => {
        if (failNext-- > 0) throw new Error('ClickHouse is down');
        written.push(...records.map((record) => record.payload.toString()));
      },
      systemClock,
      (error) => errors.push(error),
      policy,
    );
    add(5, 'a');
    add(5, 'b');
    // Below minHits and younger than maxDelayMs: nothing moves until asked.
    drainer.start();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(written).toEqual([]);
    await expect(drainer.flush()).rejects.toThrow('ClickHouse is down');
    expect(spool.pendingHits()).toBe(10);
    await drainer.flush();
    expect(written).toEqual(['a', 'b']);
    expect(spool.pendingHits()).toBe(0);
    expect(errors).toHaveLength(1);
    await drainer.stop();
  });

  test('enough waiting hits start a drain without a flush, and stop writes what is left', async () => {
    const written: string[] = [];
    const drainer = new ClickHouseSpoolDrainer(
      spool,
      async (records) => void written.push(...records.map((record) => record.payload.toString())),
      systemClock,
      () => undefined,
      policy,
    );
    drainer.start();
    add(60, 'a');
    drainer.added(60);
    add(60, 'b');
    drainer.added(60);
    await expect.poll(() => written, { timeout: 2_000 }).toEqual(['a', 'b']);
    add(1, 'c');
    await drainer.stop();
    expect(written).toEqual(['a', 'b', 'c']);
    await expect(drainer.flush()).resolves.toBeUndefined();
    add(1, 'd');
    await expect(drainer.flush()).rejects.toThrow(/closed/);
  });
});
