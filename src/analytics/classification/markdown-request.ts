import { bestGrant, compareGrants, grantFor, parseAccept } from './accept-header.js';

/**
 * A Markdown fetch is how AI agents read documentation (llms.txt links, ".md" twins of pages,
 * `Accept: text/markdown`), whatever user agent they send, so decisions.md counts it as `ai`.
 */
export function isMarkdownRequest(input: { path: string; accept?: string | null }): boolean {
  return hasMarkdownExtension(input.path) || prefersMarkdown(input.accept);
}

const MARKDOWN_EXTENSION = /\.mdx?$/i;

export function hasMarkdownExtension(path: string): boolean {
  let end = path.length;
  const query = path.indexOf('?');
  if (query !== -1) end = query;
  const fragment = path.indexOf('#');
  if (fragment !== -1 && fragment < end) end = fragment;
  return MARKDOWN_EXTENSION.test(end === path.length ? path : path.slice(0, end));
}

/**
 * True when the header names Markdown explicitly, with a non-zero quality, and ranks it above
 * HTML (see compareGrants for ties). Reaching Markdown only through a wildcard is not asking for it.
 */
export function prefersMarkdown(accept: string | null | undefined): boolean {
  // Cheap exit: browsers never mention markdown, and this runs for every hit.
  if (accept === null || accept === undefined || !/markdown/i.test(accept)) return false;
  const ranges = parseAccept(accept);
  const markdown = bestGrant([grantFor(ranges, 'text', 'markdown'), grantFor(ranges, 'text', 'x-markdown')]);
  if (markdown.quality <= 0 || markdown.specificity !== 2) return false;
  const html = bestGrant([grantFor(ranges, 'text', 'html'), grantFor(ranges, 'application', 'xhtml+xml')]);
  return compareGrants(markdown, html) > 0;
}
