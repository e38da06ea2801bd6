/**
 * Makes untrusted text inert inside a pull request's Markdown.
 *
 * The text comes from the model's final message, the prompt, file names and check_docs
 * messages: all of it can be steered by prompt-injected repository content. GitHub and
 * GitLab act on such text when a pull request is opened or edited: they load remote
 * images, render raw HTML, notify @mentioned people and teams, close issues named after a
 * closing keyword (on merge), write "mentioned in" notes into referenced issues, and
 * GitLab *executes* quick actions (`/merge`, `/approve`, `/assign @x`) written at the start
 * of a description line. Some of this works on the raw text (quick actions, GitLab's closing
 * pattern), some on the rendered text (mentions and references are found after entities
 * are decoded), so escaping Markdown syntax with backslashes is not enough.
 *
 * The approach: remove invisible characters from the input, turn links and images into
 * readable text (`docs (https://x)`), then insert a ZERO WIDTH SPACE (U+200B) right after
 * every character that would start an active construct. Neither forge's patterns match
 * across it, it is not whitespace (so Markdown structure is unchanged), and it renders as
 * nothing, so `@alice`, `Fixes #12` and `<Callout>` still read the same — also inside code
 * spans and on the local forge's page (which renders the body as sanitised Markdown). Because every
 * input-supplied format character is removed first, each U+200B in the output is one of ours.
 *
 * What stays active: bare URLs (a link, never an image or a mention), emphasis, lists,
 * headings and code spans. Percent-escapes in URLs (`%2F`) are kept, so a GitLab milestone
 * whose name is two hex digits could still render as a link — that has no side effect.
 */

export const ZERO_WIDTH_SPACE = '\u200B';
const Z = ZERO_WIDTH_SPACE;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
// C0 and C1 controls except tab and newline: terminals and some renderers act on them.
const CONTROL = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g;
// Format characters: zero-width spaces and joiners, bidi overrides ("Trojan Source"), soft
// hyphens, tag characters. Removed so that hidden text cannot hide or split a pattern.
const FORMAT = /\p{Cf}/gu;
const LINE_OR_PARAGRAPH_SEPARATOR = /[\u2028\u2029]/g;

// `[text](url "title")` and `![alt](url)`. CommonMark allows more (nested brackets, `<…>`
// destinations with spaces); what this misses keeps its brackets and is defused by the
// `](` rule below, so it stays text either way.
const INLINE_LINK = /(!?)\[([^[\]\n]*)\]\([ \t]*<?([^\s()<>]*)>?(?:[ \t]+(?:"[^"\n]*"|'[^'\n]*'|\([^()\n]*\)))?[ \t]*\)/g;
// `<https://x>` and `<someone@example.com>`: the brackets go, the address stays readable.
const ANGLE_AUTOLINK = /<([A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*|[^\s<>@]+@[^\s<>]+)>/g;

/**
 * Where U+200B goes: each pattern matches an empty position, or captures the characters
 * that stay before the break as `$1`. The `u` flag makes `\p{…}` read whole characters.
 */
const BREAKS: ReadonlyArray<readonly [RegExp, string]> = [
  // Raw HTML (tags, closing tags, comments, declarations, processing instructions) and
  // autolinks all need a letter, `/`, `!` or `?` right after `<`.
  [/(?<=<)(?=[A-Za-z/!?])/gu, Z],
  // Entity references decode to text before mentions and references are looked for
  // (`&#64;alice` would notify alice); `&12` is a GitLab epic.
  [/(?<=&)(?=#|\d|[A-Za-z][A-Za-z0-9]*;)/gu, Z],
  // Images `![`, GitLab merge requests `!12`.
  [/(?<=!)(?=[[\d])/gu, Z],
  // Inline links `[x](y)` and link or footnote definitions `[x]: y` (which also feed
  // reference-style images): both need the bracket and the next character adjacent.
  [/(?<=\])(?=[(:])/gu, Z],
  // Mentions: users, `@org/team`, GitLab `@all`.
  [/(?<=@)(?=[\p{L}\p{N}_.-])/gu, Z],
  // Issue and pull request references `#12`, `owner/repo#12`, `GH-12`.
  [/(?<=#)(?=\d)/gu, Z],
  [/(?<=GH)(?=-\d)/gi, Z],
  // GitLab labels `~bug`, `~"two words"`; milestones `%v1`, `%"name"` (not `%2F`); snippets `$12`.
  [/(?<=~)(?=[\p{L}\p{N}_"])/gu, Z],
  [/(?<=%)(?![0-9A-Fa-f]{2})(?=[\p{L}\p{N}_"])/gu, Z],
  [/(?<=\$)(?=\d)/gu, Z],
  // Closing keywords of GitHub (close, fix, resolve and their -s/-d forms) and of GitLab's
  // default pattern (adds the -ing forms and implement), broken after the first letter, so
  // no spelling of "Fixes #12", "closes owner/repo#3" or "Resolves <issue URL>" is left.
  // ASCII word edges and no `u` flag: with `iu`, `[a-z]` would also match `ſ` and the Kelvin
  // sign, and a keyword after them would count as inside a word and be left alone.
  [/(?<![A-Za-z0-9_])(?=(?:clos(?:e|es|ed|ing)|fix(?:es|ed|ing)?|resolv(?:e|es|ed|ing)|implement(?:s|ed|ing)?)(?![A-Za-z0-9_]))(.)/gi, `$1${Z}`],
  // GitLab quick actions: a `/command` at the start of a description line is executed.
  [/^([ \t]*)(?=\/)/gmu, `$1${Z}`],
];

/** Removes what cannot be shown or would hide a pattern: controls, format characters, broken surrogates. */
export function normaliseUntrustedText(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(LINE_OR_PARAGRAPH_SEPARATOR, '\n').replace(LONE_SURROGATE, '\uFFFD').replace(CONTROL, '').replace(FORMAT, '');
}

function linkAsText(_match: string, _bang: string, label: string, destination: string): string {
  const text = label.trim();
  if (destination === '') return text;
  return text === '' || text === destination ? destination : `${text} (${destination})`;
}

/** Inserts U+200B wherever an active construct could start; nothing else changes. */
function breakActiveConstructs(text: string): string {
  let result = text;
  for (const [pattern, replacement] of BREAKS) result = result.replace(pattern, replacement);
  return result;
}

/**
 * Untrusted text as inert Markdown: readable as before (links as `text (url)`), with no
 * image, raw HTML, mention, reference, closing keyword, entity or quick action left.
 */
export function inertText(text: string): string {
  const normalised = normaliseUntrustedText(text).replace(INLINE_LINK, linkAsText).replace(ANGLE_AUTOLINK, '$1');
  return breakActiveConstructs(normalised);
}

/** `inertText` on one line: line breaks become spaces (titles, list items). */
export function inertLine(text: string): string {
  // split/trim rather than /\s*\n\s*/, which is quadratic on a long run of spaces.
  const parts = normaliseUntrustedText(text)
    .split('\n')
    .map((part) => part.trim());
  return inertText(parts.filter((part) => part !== '').join(' '));
}

/**
 * An inert code span. The fence is one backtick longer than the longest run inside, and
 * padded when the text starts or ends with a backtick, so no file name can close it early.
 */
export function inertCodeSpan(text: string): string {
  const inner = inertLine(text);
  const longestRun = Math.max(0, ...Array.from(inner.matchAll(/`+/g), (match) => match[0].length));
  const fence = '`'.repeat(longestRun + 1);
  const padded = inner.startsWith('`') || inner.endsWith('`') || inner === '' ? ` ${inner} ` : inner;
  return `${fence}${padded}${fence}`;
}

/**
 * Untrusted multi-line text as a blockquote. The quote is a container: a code fence or
 * list the text opens ends with it, so the text cannot swallow the structure after it.
 */
export function inertBlockquote(text: string): string {
  return inertText(text)
    .split('\n')
    .map((line) => (line.trim() === '' ? '>' : `> ${line}`))
    .join('\n');
}
