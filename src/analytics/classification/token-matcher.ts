/**
 * Finds whole-word product tokens in a user agent with one precompiled regular expression,
 * because classification runs on the ingest hot path.
 *
 * A token counts only when the characters around it cannot continue a product name, so
 * "GPTBot" matches "GPTBot/1.2", "(compatible; GPTBot)" and "; GPTBot;", but not
 * "NotGPTBotX" or "GPTBot-Preview". Letters, digits, "_" and "-" continue a name; "/", ";",
 * space, brackets, "+" and "@" end it. One exception on the right: "-" followed by a digit
 * starts a build number ("TSM-turingos-1253296984"), not a longer name.
 */
export interface TokenMatcher<Entry> {
  /** The entry with the lowest table position among all tokens present, or null. */
  match(userAgent: string): Entry | null;
}

const NAME_CHARACTER = 'A-Za-z0-9_\\-';
const CONTINUES_NAME = '[A-Za-z0-9_]|-[A-Za-z_\\-]';

export function createTokenMatcher<Entry extends { token: string }>(entries: readonly Entry[]): TokenMatcher<Entry> {
  const byToken = new Map<string, { entry: Entry; position: number }>();
  entries.forEach((entry, position) => {
    const key = entry.token.toLowerCase();
    if (!byToken.has(key)) byToken.set(key, { entry, position });
  });
  if (byToken.size === 0) return { match: () => null };

  // Longest first, so that at one position a longer token is preferred over its prefix.
  const alternatives = [...byToken.keys()].sort((a, b) => b.length - a.length).map(escapeForRegExp);
  const pattern = new RegExp(`(?<![${NAME_CHARACTER}])(?:${alternatives.join('|')})(?!${CONTINUES_NAME})`, 'gi');

  return {
    match(userAgent: string): Entry | null {
      let best: { entry: Entry; position: number } | undefined;
      pattern.lastIndex = 0;
      for (let found = pattern.exec(userAgent); found !== null; found = pattern.exec(userAgent)) {
        const candidate = byToken.get(found[0].toLowerCase());
        if (candidate !== undefined && (best === undefined || candidate.position < best.position)) best = candidate;
      }
      return best?.entry ?? null;
    },
  };
}

function escapeForRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
