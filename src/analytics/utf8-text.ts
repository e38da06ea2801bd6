import { isUtf8 } from 'node:buffer';

/**
 * False when `value` holds an unpaired UTF-16 surrogate, which has no UTF-8 form.
 * String.prototype.isWellFormed (Node 20), typed here: the ES2023 lib the project compiles
 * against does not have it. Half the time of a lookaround regex on typical hit fields.
 */
export function isWellFormed(value: string): boolean {
  return (value as string & { isWellFormed(): boolean }).isWellFormed();
}

/**
 * The text of a request body, where each byte that is not part of valid UTF-8 becomes a lone
 * low surrogate (U+DC00 + the byte) instead of U+FFFD. Decoding with U+FFFD would store
 * something else than was sent, and would hide which event held the bad bytes; a lone
 * surrogate in a string is refused by event validation for that event and field alone
 * (event-validation.ts), and one outside a string still makes the body invalid JSON.
 */
export function decodeUtf8Marked(bytes: Uint8Array): string {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // The usual body is valid: one native check, one native decode.
  if (isUtf8(buffer)) return buffer.toString('utf8');
  let text = '';
  let start = 0;
  let index = 0;
  while (index < buffer.length) {
    const lead = buffer[index]!;
    if (lead < 0x80) {
      index += 1;
      continue;
    }
    // The length a sequence with this lead byte has; isUtf8 then checks the continuation
    // bytes, overlong forms, encoded surrogates and the U+10FFFF limit.
    const length = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
    if (length > 1 && index + length <= buffer.length && isUtf8(buffer.subarray(index, index + length))) {
      index += length;
      continue;
    }
    text += buffer.toString('utf8', start, index) + String.fromCharCode(0xdc00 + lead);
    index += 1;
    start = index;
  }
  return text + buffer.toString('utf8', start);
}
