/**
 * One-dimensional PostgreSQL arrays in the binary wire format (array_recv), for the
 * `unnest($n::type[])` batch inserts. node-postgres sends a Buffer parameter as binary, so
 * PostgreSQL reads fixed-width integers instead of parsing a text literal digit by digit
 * (array_in was most of the database's CPU per inserted hit), and the request thread
 * writes numbers into a buffer instead of printing them into a string.
 *
 * Layout: ndim, has-null flag, element type oid, length, lower bound (int32 each), then
 * per element its byte length (-1 for null) and its bytes, all big-endian.
 *
 * Written here because the pg ecosystem's packages go the other way (pg-types and
 * postgres-array parse results; none writes array_recv buffers), and the format is small
 * and fixed; test/analytics/postgres-binary-array.test.ts round-trips it through a real
 * PostgreSQL (every integer width and edge value, nulls, hostile strings).
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

/** A row of a column-oriented batch: `column(batch)[index]` is its value. */
export interface ColumnRow<Batch> {
  batch: Batch;
  index: number;
}

/**
 * An integer array with one element per row, read from each row's batch column (rows of a
 * batch are usually adjacent, so the column is looked up once per run of them). A missing
 * column reads as 0; with `zeroIsNull` a 0 is sent as NULL. Values must be integers that
 * fit the type (int8 takes any safe integer).
 */
export function binaryIntegerColumn<Batch>(
  type: IntegerType,
  rows: ReadonlyArray<ColumnRow<Batch>>,
  column: (batch: Batch) => ArrayLike<number> | undefined,
  zeroIsNull = false,
): Buffer {
  const count = rows.length;
  // Sized for no nulls; the unused tail is cut off at the end.
  const buffer = Buffer.allocUnsafe(HEADER_BYTES + count * (4 + type.bytes));
  let offset = HEADER_BYTES;
  let hasNull = false;
  let batch: Batch | undefined;
  let values: ArrayLike<number> | undefined;
  const limit = 2 ** (type.bytes * 8 - 1);
  for (let position = 0; position < count; position++) {
    const row = rows[position]!;
    if (row.batch !== batch) {
      batch = row.batch;
      values = column(batch);
    }
    const value = values === undefined ? 0 : values[row.index]!;
    if (value === 0 && zeroIsNull) {
      hasNull = true;
      buffer.writeInt32BE(NULL_LENGTH, offset);
      offset += 4;
      continue;
    }
    const fits = type.bytes === 8 ? Number.isSafeInteger(value) : Number.isInteger(value) && value >= -limit && value < limit;
    if (!fits) throw new TypeError(`binary array: ${String(value)} is not a ${type.bytes * 8}-bit integer`);
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
  header(buffer, type.oid, count, hasNull);
  return buffer.subarray(0, offset);
}

/** An int8 array from a 64-bit column as it is (visitor hashes use the whole range). */
export function binaryBigintColumn<Batch>(rows: ReadonlyArray<ColumnRow<Batch>>, column: (batch: Batch) => BigInt64Array): Buffer {
  const count = rows.length;
  const buffer = Buffer.allocUnsafe(HEADER_BYTES + count * 12);
  header(buffer, INT8.oid, count, false);
  let offset = HEADER_BYTES;
  let batch: Batch | undefined;
  let values: BigInt64Array | undefined;
  for (let position = 0; position < count; position++) {
    const row = rows[position]!;
    if (row.batch !== batch) {
      batch = row.batch;
      values = column(batch);
    }
    buffer.writeInt32BE(8, offset);
    buffer.writeBigInt64BE(values![row.index]!, offset + 4);
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
