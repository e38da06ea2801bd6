/**
 * PostgreSQL array literals for the `unnest($n::type[])` batch inserts. node-postgres
 * encodes a JS array element by element (type checks, then quoting and escaping even
 * numbers), which took a fifth of the request thread's CPU during ingest; these build the
 * same literal in one pass. The parameter is then sent as text and cast by the statement.
 */

/** `{1,2,NULL}`, one element read from each item; every value must be an integer or null. */
export function integerArrayLiteral<Item>(items: readonly Item[], read: (item: Item) => number | bigint | null): string {
  let literal = '{';
  for (let position = 0; position < items.length; position++) {
    const value = read(items[position]!);
    if (position > 0) literal += ',';
    if (value === null) {
      literal += 'NULL';
    } else if (typeof value === 'bigint' || Number.isSafeInteger(value)) {
      literal += String(value);
    } else {
      throw new TypeError(`integerArrayLiteral: ${String(value)} is not an integer`);
    }
  }
  return `${literal}}`;
}

/** `{"a","b\"c",NULL}`, one element read from each item: every string quoted, with backslash and double quote escaped. */
export function textArrayLiteral<Item>(items: readonly Item[], read: (item: Item) => string | null): string {
  let literal = '{';
  for (let position = 0; position < items.length; position++) {
    const value = read(items[position]!);
    if (position > 0) literal += ',';
    literal += value === null ? 'NULL' : `"${value.replace(/[\\"]/g, '\\$&')}"`;
  }
  return `${literal}}`;
}
