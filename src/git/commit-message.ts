/**
 * Commit messages written by the orchestrator for the agent's edits: a subject short
 * enough for every git UI (≤ 72 characters) and a body that lists the files, so the
 * history stays readable without opening each commit.
 */
export interface CommitMessageInput {
  /** What the user asked for; the fallback source of the subject. */
  prompt: string;
  changedFiles: readonly string[];
  /** The agent's own account of what it did, preferred over the prompt when present. */
  summary?: string | null;
}

export const MAX_SUBJECT_LENGTH = 72;
const MAX_LISTED_FILES = 50;
const MAX_SUMMARY_LENGTH = 2000;

export function deriveCommitMessage(input: CommitMessageInput): string {
  const subject = deriveSubject(input);
  const sections: string[] = [];
  const summary = (input.summary ?? '').trim();
  if (summary.length > 0 && summary !== subject) sections.push(clip(summary, MAX_SUMMARY_LENGTH));
  const files = [...new Set(input.changedFiles)].sort();
  if (files.length > 0) {
    const listed = files.slice(0, MAX_LISTED_FILES).map((file) => `- ${file}`);
    if (files.length > MAX_LISTED_FILES) listed.push(`- … and ${files.length - MAX_LISTED_FILES} more`);
    sections.push(`${files.length === 1 ? 'Changed file' : 'Changed files'}:\n${listed.join('\n')}`);
  }
  return sections.length > 0 ? `${subject}\n\n${sections.join('\n\n')}\n` : `${subject}\n`;
}

function deriveSubject(input: CommitMessageInput): string {
  const source = cleanSubject(input.summary ?? '') || cleanSubject(input.prompt);
  if (source.length === 0) {
    const count = new Set(input.changedFiles).size;
    return count === 1 ? shorten(`Update ${input.changedFiles[0] ?? 'documentation'}`, MAX_SUBJECT_LENGTH) : 'Update documentation';
  }
  return shorten(source.charAt(0).toUpperCase() + source.slice(1), MAX_SUBJECT_LENGTH);
}

/** The first sentence without trailing punctuation; empty when nothing is left to say. */
function cleanSubject(text: string): string {
  return trimTrailingPunctuation(firstSentence(text));
}

/** The first line, and of it the first sentence: subjects describe, bodies explain. */
function firstSentence(text: string): string {
  const line =
    text
      .trim()
      .split(/\r?\n/)
      .find((candidate) => candidate.trim().length > 0) ?? '';
  const collapsed = line
    .replace(/\s+/g, ' ')
    .replace(/^[#>*\-\s]+/, '')
    .trim();
  const end = collapsed.search(/[.!?](\s|$)/);
  return (end > 0 ? collapsed.slice(0, end) : collapsed).trim();
}

/** Cuts at a word boundary and marks the cut, keeping within `limit` characters. */
function shorten(text: string, limit: number): string {
  const characters = Array.from(text);
  if (characters.length <= limit) return text;
  const head = characters.slice(0, limit - 1).join('');
  const boundary = head.lastIndexOf(' ');
  const cut = boundary >= limit / 2 ? head.slice(0, boundary) : head;
  return `${trimTrailingPunctuation(cut)}…`;
}

function clip(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}

/**
 * Drops trailing `.:;,` and whitespace. A loop, not `/[.:;,\s]+$/`: V8 retries that
 * regex at every position of a long run of those characters (quadratic; 0.6 s for 20k).
 */
function trimTrailingPunctuation(text: string): string {
  let end = text.length;
  while (end > 0 && /[.:;,\s]/.test(text[end - 1]!)) end -= 1;
  return text.slice(0, end);
}
