/**
 * Turns a matched stretch of a user agent into the product name written there, without its
 * version: "Googlebot/" gives "Googlebot", "bot" inside "bingbot/2.0" gives "bingbot",
 * "curl/8.4.0" gives "curl", "Screaming Frog SEO Spider" stays whole. Returns null when the
 * stretch sits inside a URL or an e-mail address, where words are host names, not products.
 */
const NAME_CHARACTER = /[A-Za-z0-9_.'-]/;
const MAX_NAME_LENGTH = 64;

export function productTokenAt(userAgent: string, start: number, end: number = start + 1): string | null {
  let from = Math.max(0, start);
  let to = Math.min(userAgent.length, Math.max(end, from + 1));
  while (from < to && !isNameCharacter(userAgent, from)) from++;
  while (to > from && !isNameCharacter(userAgent, to - 1)) to--;
  if (from >= to) return null;

  // A stretch that crosses a separator other than a space ("curl/8.4.0") names its first word.
  for (let index = from; index < to; index++) {
    if (!isNameCharacter(userAgent, index) && userAgent[index] !== ' ') {
      to = index;
      break;
    }
  }
  while (from > 0 && isNameCharacter(userAgent, from - 1)) from--;
  while (to < userAgent.length && isNameCharacter(userAgent, to)) to++;

  const name = userAgent
    .slice(from, to)
    .trim()
    .replace(/^[.'\-_]+|[.'\-_]+$/g, '');
  if (name.length === 0 || !/[A-Za-z]/.test(name)) return null;
  if (isInsideUrlOrAddress(userAgent, from, to, name)) return null;
  return name.length > MAX_NAME_LENGTH ? name.slice(0, MAX_NAME_LENGTH) : name;
}

function isNameCharacter(text: string, index: number): boolean {
  return NAME_CHARACTER.test(text[index] ?? ' ');
}

function isInsideUrlOrAddress(userAgent: string, from: number, to: number, name: string): boolean {
  if (userAgent[to] === '@' || userAgent[from - 1] === '@') return true;
  if (userAgent.startsWith('://', to)) return true; // the scheme itself: "http", "https"
  if (/^www\./i.test(name)) return true;
  if (userAgent[to] === '/' && /\.[a-z]{2,}$/i.test(name)) return true; // "github.com/…" without a scheme
  // Walk back to the start of the whitespace-, bracket- or semicolon-delimited chunk.
  let chunkStart = from;
  while (chunkStart > 0 && !/[\s;(),]/.test(userAgent[chunkStart - 1]!)) chunkStart--;
  const prefix = userAgent.slice(chunkStart, from);
  return (
    prefix.includes('://') || prefix.includes('@') || /^\+?www\./i.test(prefix) || /[A-Za-z0-9-]+\.[A-Za-z]{2,}\//.test(prefix) // a path after a scheme-less host
  );
}
