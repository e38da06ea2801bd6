const BACKSLASH = 0x5c;

const SIMPLE_ESCAPES: Record<string, number> = {
  '"': 0x22,
  '\\': 0x5c,
  n: 0x0a,
  r: 0x0d,
  t: 0x09,
  b: 0x08,
  f: 0x0c,
  v: 0x0b,
  "'": 0x27,
};

const encoder = new TextEncoder();

/**
 * Undoes the escaping nginx and Apache apply inside quoted log fields: `\"`, `\\`, the
 * C escapes, and `\xHH` bytes. nginx writes every byte above 0x7e as `\xHH`, so a
 * non-ASCII user agent arrives as escaped UTF-8 bytes; decoding bytes rather than
 * characters turns them back into text.
 */
export function unescapeLogString(raw: string): string {
  if (!raw.includes('\\')) return raw;
  const bytes: number[] = [];
  for (let index = 0; index < raw.length; index++) {
    const code = raw.charCodeAt(index);
    if (code !== BACKSLASH || index + 1 >= raw.length) {
      pushCharacter(bytes, raw, index, code);
      if (code >= 0xd800 && code <= 0xdbff) index++;
      continue;
    }
    const next = raw.charAt(index + 1);
    const hex = next === 'x' ? raw.slice(index + 2, index + 4) : '';
    if (hex.length === 2 && /^[0-9A-Fa-f]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      index += 3;
    } else if (SIMPLE_ESCAPES[next] !== undefined) {
      bytes.push(SIMPLE_ESCAPES[next]);
      index += 1;
    } else {
      // An unknown escape is kept literally rather than guessed at.
      bytes.push(BACKSLASH);
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

function pushCharacter(bytes: number[], raw: string, index: number, code: number): void {
  if (code < 0x80) {
    bytes.push(code);
    return;
  }
  const codePoint = raw.codePointAt(index) ?? code;
  for (const byte of encoder.encode(String.fromCodePoint(codePoint))) bytes.push(byte);
}
