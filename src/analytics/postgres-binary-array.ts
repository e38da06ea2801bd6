/**
 * One-dimensional PostgreSQL arrays in the binary wire format (array_recv), for the
 * `unnest($n::type[])` batch inserts. node-postgres sends a Buffer parameter as binary, so
 * PostgreSQL reads fixed-width integers instead of parsing a text literal digit by digit
 * (array_in was most of the database's CPU per inserted hit), and the request thread
 * writes numbers into a buffer instead of printing them into a string.
 *
 * Layout: ndim, has-null flag, element type oid, length, lower bound (int32 each), then
 * per element its byte length (-1 for null) and its bytes, all big-endian.
 */

const HEADER_BYTES = 20;
const NULL_LENGTH = -1;
const TWO_TO_32 = 4_294_967_296;
/** Element types (pg_type oids) and their widths. */
export const INT2 = { oid: 21, bytes: 2 } as const;
export const INT4 = { oid: 23, bytes: 4 } as const;
export const INT8 = { oid: 20, bytes: 8 } as const;
const TEXT_OID = 25;

export type IntegerType = typeof INT2 | typeof INT4 | typeof INT8;

function header(buffer: Buffer, oid: number, count: number, hasNull: boolean): void {
  buffer.writeInt32BE(1, 0);
  buffer.writeInt32BE(hasNull ? 1 : 0, 4);
  buffer.writeInt32BE(oid, 8);
  buffer.writeInt32BE(count, 12);
  buffer.writeInt32BE(1, 16);
}

function checkRange(value: number, type: IntegerType): void {
  const limit = 2 ** (type.bytes * 8 - 1);
  const ok = type.bytes === 8 ? Number.isSafeInteger(value) : Number.isInteger(value) && value >= -limit && value < limit;
  if (!ok) throw new TypeError(`binary array: ${String(value)} is not a ${type.bytes * 8}-bit integer`);
}

/**
 * An integer array of `count` elements; `read(i)` gives element i, null for NULL. Numbers
 * must be integers that fit the type (an int8 column takes any safe integer).
 */
export function binaryIntegerArray(type: IntegerType, count: number, read: (position: number) => number | null): Buffer {
  let nulls = 0;
  const values: Array<number | null> = new Array<number | null>(count);
  for (let position = 0; position < count; position++) {
    const value = read(position);
    if (value === null) nulls += 1;
    else checkRange(value, type);
    values[position] = value;
  }
  const buffer = Buffer.allocUnsafe(HEADER_BYTES + count * 4 + (count - nulls) * type.bytes);
  header(buffer, type.oid, count, nulls > 0);
  let offset = HEADER_BYTES;
  for (const value of values) {
    if (value === null) {
      buffer.writeInt32BE(NULL_LENGTH, offset);
      offset += 4;
      continue;
    }
    buffer.writeInt32BE(type.bytes, offset);
    offset += 4;
    if (type.bytes === 2) buffer.writeInt16BE(value, offset);
    else if (type.bytes === 4) buffer.writeInt32BE(value, offset);
    else {
      // A safe integer as two 32-bit halves: no BigInt per element.
      const high = Math.floor(value / TWO_TO_32);
      buffer.writeInt32BE(high, offset);
      buffer.writeUInt32BE(value - high * TWO_TO_32, offset + 4);
    }
    offset += type.bytes;
  }
  return buffer;
}

/** An int8 array from 64-bit values as they are (visitor hashes use the whole range). */
export function binaryBigintArray(count: number, read: (position: number) => bigint): Buffer {
  const buffer = Buffer.allocUnsafe(HEADER_BYTES + count * 12);
  header(buffer, INT8.oid, count, false);
  let offset = HEADER_BYTES;
  for (let position = 0; position < count; position++) {
    buffer.writeInt32BE(8, offset);
    buffer.writeBigInt64BE(read(position), offset + 4);
    offset += 12;
  }
  return buffer;
}

/** A text array; `read(i)` gives element i, null for NULL. Strings go as UTF-8. */
export function binaryTextArray(count: number, read: (position: number) => string | null): Buffer {
  let bytes = 0;
  let nulls = 0;
  const values: Array<string | null> = new Array<string | null>(count);
  for (let position = 0; position < count; position++) {
    const value = read(position);
    values[position] = value;
    if (value === null) nulls += 1;
    else bytes += Buffer.byteLength(value, 'utf8');
  }
  const buffer = Buffer.allocUnsafe(HEADER_BYTES + count * 4 + bytes);
  header(buffer, TEXT_OID, count, nulls > 0);
  let offset = HEADER_BYTES;
  for (const value of values) {
    if (value === null) {
      buffer.writeInt32BE(NULL_LENGTH, offset);
      offset += 4;
      continue;
    }
    const length = buffer.write(value, offset + 4, 'utf8');
    buffer.writeInt32BE(length, offset);
    offset += 4 + length;
  }
  return buffer;
}
