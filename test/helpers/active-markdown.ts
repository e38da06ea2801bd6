import fc from 'fast-check';

/**
 * Test oracle for inert pull request text (src/jobs/inert-markdown.ts): what GitHub or GitLab would act on, written independently of the sanitiser (word lists
 * spelled out, no shared patterns): a match anywhere in a body is a failure, inside code
 * spans too, because GitLab's closing pattern and quick actions read the raw text.
 */
const KEYWORDS = ['close', 'closes', 'closed', 'closing', 'fix', 'fixes', 'fixed', 'fixing', 'resolve', 'resolves', 'resolved', 'resolving', 'implement', 'implements', 'implemented', 'implementing'];
const ACTIVE: ReadonlyArray<readonly [string, RegExp]> = [
  ['raw HTML, comment or autolink', /<[A-Za-z/!?]/],
  ['image', /!\[/],
  ['inline link', /\]\(/],
  ['link or footnote definition', /\]:/],
  ['entity reference', /&#|&[A-Za-z][A-Za-z0-9]*;/],
  ['mention', /@[\p{L}\p{N}_.-]/u],
  ['issue reference', /#[0-9]/],
  ['GH- reference', /GH-[0-9]/i],
  ['merge request reference', /![0-9]/],
  ['epic reference', /&[0-9]/],
  ['label reference', /~[\p{L}\p{N}_"]/u],
  ['milestone reference', /%(?![0-9A-Fa-f]{2})[\p{L}\p{N}_"]/u],
  ['snippet reference', /\$[0-9]/],
  ['closing keyword', new RegExp(`(?<![A-Za-z0-9_])(?:${KEYWORDS.join('|')})(?![A-Za-z0-9_])`, 'i')],
  ['quick action', /^[ \t]*\//m],
  ['invisible character other than ours', /(?!\u200B)\p{Cf}/u],
  ['control character', /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/],
  ['lone surrogate', /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/],
];

export function activeConstructs(text: string): string[] {
  return ACTIVE.filter(([, pattern]) => pattern.test(text)).map(([name, pattern]) => `${name}: ${JSON.stringify(pattern.exec(text)?.[0])}`);
}

// Pieces an attacker would combine, plus characters that sit next to them.
export const PIECES = [
  '@', '#', '!', '[', ']', '(', ')', '<', '>', '/', '\n', ' ', '\t', '&', ';', '%', '~', '$', '`', '\\', '"', "'", ':', '-', '_', '.', '*', '=',
  '1', '12', 'a', 'x', 'GH', 'gh-', 'img', 'fix', 'Fixes', 'CLOSED', 'resolving', 'Implements', 'close', 'ſ', 'é', 'K', '\u212A',
  'https://evil.test/p.png', 'owner/repo', 'merge', 'approve', 'assign', 'all', 'org/team', 'amp', '#64', 'commat', 'lt', '&#x40;',
  '\u200B', '\u200D', '\u202E', '\u2066', '\u00AD', '\uFEFF', '\r', '\u2028', '\u0007', '\u0085', '\uD800', '\uDC00', '```', '~~~', '> ', '    ',
];
export const attackText = fc.oneof(
  { weight: 4, arbitrary: fc.array(fc.constantFrom(...PIECES), { maxLength: 60 }).map((pieces) => pieces.join('')) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 80 }) },
);

export const ZW = '\u200B';
export const visible = (text: string): string => text.replaceAll(ZW, '');
