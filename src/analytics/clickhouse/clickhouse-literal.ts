/**
 * The one place where values become ClickHouse SQL. ClickHouse 18.16 (Debian's package,
 * which CI runs) has no query parameters (`{name:Type}`), so every value goes into the
 * query text as a literal; nothing else in src/analytics/clickhouse may build SQL from
 * values. Audited rules (ClickHouse's lexer, "String literals"):
 * - strings are single-quoted; backslash and single quote are escaped with a backslash,
 *   every other character below U+0020 and DEL as `\xHH`, so a literal never spans lines
 *   and no byte can end it early; other characters go through as UTF-8;
 * - a string with an unpaired UTF-16 surrogate is refused: it has no UTF-8 form, and
 *   sending U+FFFD instead would store something else than was asked;
 * - numbers must be safe integers (or bigints), so no `NaN`, `Infinity`, exponent or
 *   fraction ever reaches the text;
 * - arrays are bracketed lists of the above; identifiers are a separate, stricter kind.
 */

export type LiteralValue = string | number | bigint | readonly LiteralValue[];

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const NEEDS_ESCAPE = /[\\'\u0000-\u001f\u007f]/g;

function escapeCharacter(character: string): string {
  if (character === '\\') return '\\\\';
  if (character === "'") return "\\'";
  return `\\x${character.charCodeAt(0).toString(16).padStart(2, '0')}`;
}

/** A ClickHouse string literal of `value`. */
export function stringLiteral(value: string): string {
  if (LONE_SURROGATE.test(value)) throw new TypeError('a string with an unpaired surrogate has no UTF-8 form');
  return `'${value.replace(NEEDS_ESCAPE, escapeCharacter)}'`;
}

/** A ClickHouse integer literal; only safe integers and bigints. */
export function integerLiteral(value: number | bigint): string {
  if (typeof value === 'bigint') return value.toString();
  if (!Number.isSafeInteger(value)) throw new TypeError(`not a safe integer: ${String(value)}`);
  // -0 prints as 0.
  return String(value === 0 ? 0 : value);
}

export function literal(value: LiteralValue): string {
  if (typeof value === 'string') return stringLiteral(value);
  if (typeof value === 'number' || typeof value === 'bigint') return integerLiteral(value);
  return `[${value.map(literal).join(', ')}]`;
}

/** A parenthesised list for `IN`: `(1, 2)`; never empty (`IN ()` is not SQL). */
export function listLiteral(values: readonly LiteralValue[]): RawSql {
  if (values.length === 0) throw new TypeError('an IN list needs at least one value');
  return new RawSql(`(${values.map(literal).join(', ')})`);
}

const TSV_ESCAPE = /[\\\t\n\r\0]/g;
const TSV_ESCAPES: Readonly<Record<string, string>> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r', '\0': '\\0' };

/**
 * A field of a TabSeparated insert (the bulk path: rows are text, not SQL): backslash,
 * tab, newline, carriage return and NUL escaped with a backslash, null as `\N`. The same
 * surrogate rule as string literals.
 */
export function tsvField(value: string | null): string {
  if (value === null) return '\\N';
  if (LONE_SURROGATE.test(value)) throw new TypeError('a string with an unpaired surrogate has no UTF-8 form');
  return value.replace(TSV_ESCAPE, (character) => TSV_ESCAPES[character]!);
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/** True for names Docwright accepts as database or cluster names (no quoting subtleties). */
export function isPlainIdentifier(name: string): boolean {
  return IDENTIFIER.test(name);
}

/** A back-quoted identifier; only plain names, checked, so quoting is never needed inside. */
export function identifier(name: string): string {
  if (!isPlainIdentifier(name)) throw new TypeError(`not a plain identifier: ${JSON.stringify(name)}`);
  return `\`${name}\``;
}

/** SQL text that is inserted as is (table names, fixed fragments): never built from input. */
export class RawSql {
  constructor(readonly text: string) {}
}

export const raw = (text: string): RawSql => new RawSql(text);

/**
 * A tagged template: every interpolated value becomes a literal, except RawSql, which
 * is inserted as is. `sql\`select ${raw(table)} where site = ${site}\``.
 */
export function sql(strings: TemplateStringsArray, ...values: ReadonlyArray<LiteralValue | RawSql>): string {
  let text = strings[0]!;
  values.forEach((value, index) => {
    text += (value instanceof RawSql ? value.text : literal(value)) + strings[index + 1]!;
  });
  return text;
}
