/*
 * Sizes as the model is sent them: a tool result reaches the provider as JSON text, so
 * its cost is the UTF-8 length of that text, escapes (\", \n, \t) included.
 */

/** UTF-8 bytes of `value` as JSON. */
export function jsonBytes(value: unknown): number {
  const json = JSON.stringify(value) as string | undefined;
  // undefined (and functions) have no JSON form and send nothing.
  return json === undefined ? 0 : Buffer.byteLength(json, 'utf8');
}

/** UTF-8 bytes of a string inside a JSON text, without its quotes. */
export function jsonBytesOfString(text: string): number {
  return Buffer.byteLength(JSON.stringify(text), 'utf8') - 2;
}

/** The longest start of `text` that stays within `maxBytes` once quoted as a JSON string. */
export function startWithinJsonBytes(text: string, maxBytes: number): string {
  // Every character takes at least one byte, so no longer start can fit.
  let low = 0;
  let high = Math.min(text.length, maxBytes);
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (jsonBytes(text.slice(0, middle)) <= maxBytes) low = middle;
    else high = middle - 1;
  }
  const cut = text.slice(0, low);
  // A lone high surrogate at the end would be half a character.
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
}
