import type { HitBatch } from '../analytics-store.js';
import { dayOf } from '../analytics-codes.js';
import { tsvField } from './clickhouse-literal.js';

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
] as const;

/** Bytes reserved per row up front; a row with long strings grows the buffer. */
const ROW_BYTES_GUESS = 256;
const TAB = 0x09;
const NEWLINE = 0x0a;
const MINUS = 0x2d;
const ZERO = 0x30;
/** `\N`, TabSeparated's null. */
const NULL_FIELD = Buffer.from('\\N', 'latin1');

/**
 * Writes hit rows as TabSeparated text straight into one buffer per insert. The text is
 * what one template string per row made before (clickhouse-hit-rows.test.ts holds the two
 * to each other); the difference is garbage. A group of requests (about ten thousand rows
 * at 32 clients) was ten thousand strings of ~40 pieces each plus their joined copy, alive
 * across the INSERT's round trip, and the main thread's garbage collection took 3.6 µs per
 * hit there (docs/benchmarks.md, "ClickHouse ingest: rows per insert"). Numbers are written
 * digit by digit, 64-bit ones from their two 32-bit words, so no string is made for them;
 * strings go through tsvField, the audited escaping.
 */
export class HitRowEncoder {
  private buffer: Buffer;
  private offset = 0;
  /** Decimal groups of a 64-bit number, least significant first (see unsigned64). */
  private readonly groups = new Int32Array(5);
  private readonly digits = new Uint8Array(20);

  constructor(expectedRows: number) {
    this.buffer = Buffer.allocUnsafe(Math.max(4_096, expectedRows * ROW_BYTES_GUESS));
  }

  /** The text written so far (a view of the encoder's buffer: write nothing more while it is in use). */
  bytes(): Buffer {
    return this.buffer.subarray(0, this.offset);
  }

  /**
   * Row `index` of `batch` for generation `gen`. `visitorWords` and `nonceWords` are the
   * batch's visitor column and the group's nonces for it seen as 32-bit words (little-endian
   * halves); the nonce is written only for a hit without an event id (0 otherwise), as before.
   */
  row(gen: number, batch: HitBatch, index: number, visitorWords: Uint32Array, nonceWords: Uint32Array): void {
    const at = batch.at[index]!;
    if (!Number.isSafeInteger(at)) throw new TypeError(`hit time is not an integer: ${at}`);
    const eventId = batch.eventId[index] ?? null;
    this.ensure(160);
    this.integer(gen);
    this.tab();
    this.integer(batch.site);
    this.tab();
    this.integer(at);
    this.tab();
    this.integer(dayOf(at));
    this.tab();
    this.integer(batch.page[index]!);
    this.tab();
    this.signed64(visitorWords[2 * index + 1]!, visitorWords[2 * index]!);
    this.tab();
    this.integer(batch.classCode[index]!);
    this.tab();
    this.integer(batch.agent[index]!);
    this.tab();
    this.integer(batch.userAgent[index]!);
    this.tab();
    this.text(batch.referrer[index] ?? null);
    this.tab();
    this.integer(batch.markdownAccept[index]!);
    this.tab();
    this.integer(batch.classifierVersion);
    this.tab();
    this.text(eventId ?? '');
    this.ensure(120);
    this.tab();
    if (eventId === null) this.unsigned64(nonceWords[2 * index + 1]!, nonceWords[2 * index]!);
    else this.byte(ZERO);
    this.tab();
    this.integer(batch.category[index]!);
    this.tab();
    this.integer(batch.verification[index]!);
    this.tab();
    this.integer(batch.readKind[index]!);
    this.tab();
    this.orNull(batch.status[index]!);
    this.tab();
    this.orNull(batch.referral[index]!);
    this.tab();
    this.text(batch.addressBlock?.[index] ?? null);
    this.ensure(8);
    this.tab();
    this.integer(batch.evidence?.[index] ?? 0);
    this.byte(NEWLINE);
  }

  private ensure(bytes: number): void {
    if (this.offset + bytes <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.offset + bytes));
    this.buffer.copy(grown, 0, 0, this.offset);
    this.buffer = grown;
  }

  private byte(value: number): void {
    this.buffer[this.offset++] = value;
  }

  private tab(): void {
    this.buffer[this.offset++] = TAB;
  }

  /** 0 is "none" in the batch arrays and null in the table. */
  private orNull(value: number): void {
    if (value === 0) this.offset += NULL_FIELD.copy(this.buffer, this.offset);
    else this.integer(value);
  }

  private text(value: string | null): void {
    if (value === null) {
      this.offset += NULL_FIELD.copy(this.buffer, this.offset);
      return;
    }
    const field = tsvField(value);
    // UTF-8 takes at most three bytes per UTF-16 code unit; the 120 bytes after it are for the fixed fields.
    this.ensure(field.length * 3 + 120);
    this.offset += this.buffer.write(field, this.offset, 'utf8');
  }

  /** A safe integer in decimal. */
  private integer(value: number): void {
    if (value < 0) {
      this.byte(MINUS);
      value = -value;
    }
    if (value < 10) {
      this.byte(ZERO + value);
      return;
    }
    let count = 0;
    while (value > 0) {
      const next = Math.floor(value / 10);
      this.digits[count++] = value - next * 10;
      value = next;
    }
    while (count > 0) this.buffer[this.offset++] = ZERO + this.digits[--count]!;
  }

  /** An Int64 from its high and low 32-bit words, two's complement. */
  private signed64(high: number, low: number): void {
    if (high < 0x80000000) {
      this.unsigned64(high, low);
      return;
    }
    this.byte(MINUS);
    const negatedLow = (~low + 1) >>> 0;
    this.unsigned64((~high + (negatedLow === 0 ? 1 : 0)) >>> 0, negatedLow);
  }

  /**
   * A UInt64 from its high and low 32-bit words. Below 2^53 it is a safe double; above,
   * long division of its four 16-bit limbs by 10,000 (every step below 2^30) gives four
   * decimal digits at a time.
   */
  private unsigned64(high: number, low: number): void {
    if (high < 0x200000) {
      this.integer(high * 0x100000000 + low);
      return;
    }
    let a = high >>> 16;
    let b = high & 0xffff;
    let c = low >>> 16;
    let d = low & 0xffff;
    let count = 0;
    while (a !== 0 || b !== 0 || c !== 0 || d !== 0) {
      let step = a;
      a = Math.floor(step / 10_000);
      step = (step - a * 10_000) * 0x10000 + b;
      b = Math.floor(step / 10_000);
      step = (step - b * 10_000) * 0x10000 + c;
      c = Math.floor(step / 10_000);
      step = (step - c * 10_000) * 0x10000 + d;
      d = Math.floor(step / 10_000);
      this.groups[count++] = step - d * 10_000;
    }
    this.integer(this.groups[--count]!);
    while (count > 0) {
      const group = this.groups[--count]!;
      this.byte(ZERO + Math.floor(group / 1_000));
      this.byte(ZERO + (Math.floor(group / 100) % 10));
      this.byte(ZERO + (Math.floor(group / 10) % 10));
      this.byte(ZERO + (group % 10));
    }
  }
}

/** A 64-bit column as its 32-bit words, without copying. */
export function wordsOf(column: BigInt64Array | BigUint64Array): Uint32Array {
  return new Uint32Array(column.buffer, column.byteOffset, column.length * 2);
}
