import { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { ClickHouseClient } from '@clickhouse/client';
import type { HitBatch } from '../analytics-store.js';
import { dayOf } from '../analytics-codes.js';

/** Columns of the hit insert, in the order HitRowEncoder writes each row. */
export const HIT_COLUMNS = [
  'gen',
  'site',
  'at',
  'day',
  'page',
  'visitor',
  'class',
  'agent',
  'user_agent',
  'referrer',
  'markdown_accept',
  'classifier_version',
  'event_id',
  'nonce',
  'category',
  'verification',
  'read_kind',
  'status',
  'referral',
  'address_block',
  'evidence',
  'written',
] as const;

/** Bytes reserved per row up front; a row with long strings grows the buffer. */
const ROW_BYTES_GUESS = 128;
/** Bytes of a row besides its strings, at most (fixed-width columns, null flags, length prefixes' first bytes). */
const FIXED_ROW_BYTES = 96;
/** A string of at most this many UTF-16 code units is at most 126 UTF-8 bytes: a one-byte length prefix. */
const SHORT_STRING_UNITS = 42;
const TWO_TO_32 = 0x1_0000_0000;

/**
 * Writes hit rows in ClickHouse's RowBinary format, the columns in HIT_COLUMNS' order,
 * straight into one buffer per insert: integers little-endian at their column's width,
 * strings as a LEB128 byte length and their UTF-8 bytes, a Nullable as a flag byte (1 =
 * null) before its value. It replaced TabSeparated text (docs/benchmarks.md, "ClickHouse
 * ingest: RowBinary and larger drains"): writing 64-bit numbers in decimal was the largest part of the
 * encoding, and ClickHouse parses binary rows for less than text. Nothing is escaped, so
 * no string can end its field or row; clickhouse-hit-rows.test.ts reads rows back from a
 * real server, hostile strings and the 64-bit edges included.
 */
export class HitRowEncoder {
  private buffer: Buffer;
  private offset = 0;

  /**
   * `written`: the instant (ms) the drain took these hits from the spool, stored with every
   * row (migration 007): a cell build reads only the hits written before its mark.
   */
  constructor(
    expectedRows: number,
    private readonly written: number,
  ) {
    if (!Number.isSafeInteger(written)) throw new TypeError(`write time is not an integer: ${written}`);
    this.buffer = Buffer.allocUnsafe(Math.max(4_096, expectedRows * ROW_BYTES_GUESS));
  }

  /** The rows written so far (a view of the encoder's buffer: write nothing more while it is in use). */
  bytes(): Buffer {
    return this.buffer.subarray(0, this.offset);
  }

  /**
   * Row `index` of `batch` for generation `gen`. `visitorWords` and `nonceWords` are the
   * batch's visitor column and the group's nonces for it seen as 32-bit words (little-endian
   * halves); the nonce is written only for a hit without an event id (0 otherwise).
   */
  row(gen: number, batch: HitBatch, index: number, visitorWords: Uint32Array, nonceWords: Uint32Array): void {
    const at = batch.at[index]!;
    if (!Number.isSafeInteger(at)) throw new TypeError(`hit time is not an integer: ${at}`);
    const eventId = batch.eventId[index] ?? null;
    this.ensure(FIXED_ROW_BYTES);
    this.u32(gen);
    this.u32(batch.site);
    this.int64(at);
    this.u32(dayOf(at));
    this.u32(batch.page[index]!);
    this.u32(visitorWords[2 * index]!);
    this.u32(visitorWords[2 * index + 1]!);
    this.u8(batch.classCode[index]!);
    this.u32(batch.agent[index]!);
    this.u32(batch.userAgent[index]!);
    this.nullableString(batch.referrer[index] ?? null);
    this.u8(batch.markdownAccept[index]!);
    this.u32(batch.classifierVersion);
    this.string(eventId ?? '');
    if (eventId === null) {
      this.u32(nonceWords[2 * index]!);
      this.u32(nonceWords[2 * index + 1]!);
    } else {
      this.u32(0);
      this.u32(0);
    }
    this.u8(batch.category[index]!);
    this.u8(batch.verification[index]!);
    this.u8(batch.readKind[index]!);
    // 0 is "none" in the batch arrays and null in the table.
    const status = batch.status[index]!;
    if (status === 0) this.u8(1);
    else {
      this.u8(0);
      this.u8(status);
      this.u8(status >>> 8);
    }
    const referral = batch.referral[index]!;
    if (referral === 0) this.u8(1);
    else {
      this.u8(0);
      this.u32(referral);
    }
    this.nullableString(batch.addressBlock?.[index] ?? null);
    this.u8(batch.evidence?.[index] ?? 0);
    this.int64(this.written);
  }

  /** Eight bytes little-endian: an Int64 from a safe integer (the high word floored, two's complement). */
  private int64(value: number): void {
    this.u32(value >>> 0);
    this.u32(Math.floor(value / TWO_TO_32));
  }

  private ensure(bytes: number): void {
    if (this.offset + bytes <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.offset + bytes));
    this.buffer.copy(grown, 0, 0, this.offset);
    this.buffer = grown;
  }

  /** One byte: the value modulo 256 (a Uint8Array store). */
  private u8(value: number): void {
    this.buffer[this.offset++] = value;
  }

  /** Four bytes little-endian: a UInt32, or an Int32 in two's complement. */
  private u32(value: number): void {
    const buffer = this.buffer;
    const offset = this.offset;
    buffer[offset] = value;
    buffer[offset + 1] = value >>> 8;
    buffer[offset + 2] = value >>> 16;
    buffer[offset + 3] = value >>> 24;
    this.offset = offset + 4;
  }

  private nullableString(value: string | null): void {
    if (value === null) {
      this.u8(1);
      return;
    }
    this.u8(0);
    this.string(value);
  }

  /** A String: its UTF-8 byte length as LEB128, then the bytes (a lone surrogate is U+FFFD, as Buffer writes it). */
  private string(value: string): void {
    if (value.length <= SHORT_STRING_UNITS) {
      // Written first and measured after: the length fits the one byte kept before it.
      this.ensure(1 + value.length * 3 + FIXED_ROW_BYTES);
      const start = this.offset + 1;
      const written = value.length === 0 ? 0 : this.buffer.write(value, start, 'utf8');
      this.buffer[this.offset] = written;
      this.offset = start + written;
      return;
    }
    const length = Buffer.byteLength(value, 'utf8');
    this.ensure(5 + length + FIXED_ROW_BYTES);
    let rest = length;
    while (rest >= 0x80) {
      this.u8((rest & 0x7f) | 0x80);
      rest >>>= 7;
    }
    this.u8(rest);
    this.offset += this.buffer.write(value, this.offset, 'utf8');
  }
}

/** A 64-bit column as its 32-bit words, without copying. */
export function wordsOf(column: BigInt64Array | BigUint64Array): Uint32Array {
  return new Uint32Array(column.buffer, column.byteOffset, column.length * 2);
}

/**
 * Inserts an encoder's rows into `table` (a qualified name). With exec, not insert: the
 * client's insert takes only the text formats it knows, not RowBinary. Resolves once
 * ClickHouse answered, its (empty) answer read to the end.
 */
export async function insertHitRows(client: ClickHouseClient, table: string, rows: Buffer): Promise<void> {
  const result = await client.exec({
    query: `INSERT INTO ${table} (${HIT_COLUMNS.join(', ')}) FORMAT RowBinary`,
    values: Readable.from([rows], { objectMode: false }),
  });
  result.stream.resume();
  await finished(result.stream);
}
