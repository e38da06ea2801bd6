import { hash } from 'node:crypto';

/** Distinct lines remembered per file for the occurrence count; identical lines sit seconds apart, not this far. */
export const REMEMBERED_LINES = 65_536;

/**
 * Names each hit by its own content: a hash of the log line's text plus how many
 * identical lines came before it in the same file. Therefore
 * - importing a log again, or a copy, a rename or a gzip of it, sends the same ids, and
 *   the server counts each line once;
 * - a log that grew (appended lines), a rotated file that overlaps the live one, or a log
 *   with a line removed or garbage inserted keeps the ids of every line it still holds,
 *   because no id depends on a line's position;
 * - two genuinely identical lines (the same client fetching the same page twice within
 *   the second the log records) are two hits: the second gets occurrence 1.
 * The count restarts with each file, so a file's ids do not depend on which files were
 * imported with it. The price: identical lines split across two files (a rotation in
 * that very second) count once. Only the last REMEMBERED_LINES distinct lines are
 * remembered, which bounds memory; a line identical to one that many lines earlier could
 * only be one logged out of order by more than that, and then counts once.
 */
export class LineIdentities {
  private readonly seen = new Map<string, number>();

  next(line: string): string {
    // Trailing blanks and a \r from a CRLF copy are not part of the request.
    const digest = hash('sha256', line.trimEnd(), 'base64url').slice(0, 22);
    const occurrence = this.seen.get(digest) ?? 0;
    if (occurrence > 0) this.seen.delete(digest);
    this.seen.set(digest, occurrence + 1);
    if (this.seen.size > REMEMBERED_LINES) {
      const oldest = this.seen.keys().next();
      if (oldest.done !== true) this.seen.delete(oldest.value);
    }
    return `${digest}-${occurrence}`;
  }
}
