import { serializeInnerList, serializeItem, Token, type InnerList, type Item } from 'structured-headers';

/**
 * Structured-field serialization (RFC 8941 §4.1) of what a signature base repeats: the
 * covered components and the `@signature-params` inner list. The library's serializer
 * validates every value again and costs ~2 µs per item, as much as the rest of the base;
 * these values come from its own parser, so strings, integers, tokens and booleans are
 * written directly, and anything else (decimals, byte sequences, dates) goes to the library.
 * Same output as serializeItem / serializeInnerList (test/analytics/verification/field-serialization.test.ts).
 */
export function componentText(component: Item): string {
  const name: unknown = component[0];
  const params = typeof name === 'string' ? parametersText(component[1]) : null;
  return params === null ? serializeItem(component) : `${stringText(name as string)}${params}`;
}

export function innerListText(list: InnerList): string {
  const items: string[] = [];
  for (const item of list[0]) items.push(componentText(item));
  const params = parametersText(list[1]);
  return params === null ? serializeInnerList(list) : `(${items.join(' ')})${params}`;
}

function parametersText(params: ReadonlyMap<string, unknown>): string | null {
  let text = '';
  for (const [key, value] of params) {
    if (value === true) {
      text += `;${key}`;
      continue;
    }
    const item = bareText(value);
    if (item === null) return null;
    text += `;${key}=${item}`;
  }
  return text;
}

function bareText(value: unknown): string | null {
  if (typeof value === 'string') return stringText(value);
  // An integer-valued number is written as an integer, as the library does.
  if (typeof value === 'number') return Number.isSafeInteger(value) ? String(value) : null;
  if (value === false) return '?0';
  if (value instanceof Token) return value.toString();
  return null;
}

/** A parsed sf-string holds printable ASCII only; `"` and `\` are escaped. */
function stringText(value: string): string {
  return `"${value.replace(/[\\"]/g, '\\$&')}"`;
}
