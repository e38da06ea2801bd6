/**
 * Passwords inside URLs (`postgres://user:PASSWORD@host/db`), which configuration values and
 * driver errors may carry. Whatever shows such a URL (a config error, a log line) shows it
 * through `maskUrlPasswords`; errors about a known URL lose its password with `withoutUrlPassword`.
 */
export const MASK = '****';

// scheme://user:PASSWORD@ — the password runs to the last "@" before whitespace or a quote,
// so one with an unencoded "@" or "/" is masked whole (masking a bit of the host is the safe side).
const USERINFO_PASSWORD = /\b([a-z][a-z0-9+.-]*:\/\/[^\s"'`<>:@/]*:)[^\s"'`<>]*@/gi;
/** Shorter "passwords" would mask ordinary words; a driver never echoes one anyway. */
const MIN_MASKED_LENGTH = 4;

export function maskUrlPasswords(text: string): string {
  return text.replace(USERINFO_PASSWORD, `$1${MASK}@`);
}

/** Every spelling of `url`'s password that could show up in text: as written, and decoded. */
export function urlPasswordSpellings(url: string): string[] {
  const written = /^[a-z][a-z0-9+.-]*:\/\/[^\s:@/]*:(\S*)@/i.exec(url)?.[1];
  if (written === undefined || written.length === 0) return [];
  const spellings = new Set([written]);
  try {
    spellings.add(decodeURIComponent(written));
  } catch {
    // Not valid percent-encoding: only the written form can appear.
  }
  try {
    const parsed = new URL(url).password;
    if (parsed.length > 0) {
      spellings.add(parsed);
      spellings.add(decodeURIComponent(parsed));
    }
  } catch {
    // Unparseable: the drivers cannot have used any other form either.
  }
  return [...spellings].filter((spelling) => spelling.length >= MIN_MASKED_LENGTH).sort((a, b) => b.length - a.length);
}

/**
 * Masks `url`'s password (every spelling) and any URL password in an error's message and
 * stack, in place, so the error keeps its type and code. Returns the same error.
 */
export function withoutUrlPassword<T>(error: T, url: string | undefined): T {
  if (!(error instanceof Error)) return error;
  const spellings = url === undefined ? [] : urlPasswordSpellings(url);
  const clean = (text: string): string => maskUrlPasswords(spellings.reduce((result, spelling) => result.split(spelling).join(MASK), text));
  error.message = clean(error.message);
  if (typeof error.stack === 'string') error.stack = clean(error.stack);
  return error;
}
