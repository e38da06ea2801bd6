import type { ReadKind } from './hit-category.js';
import { isMarkdownRequest } from './markdown-request.js';

/**
 * What a hit read: one of the llms.txt files (https://llmstxt.org), a Markdown rendition
 * of a page (a `.md`/`.mdx` path or an Accept that prefers Markdown, as decisions.md
 * defines a Markdown fetch), or a page. The llms.txt files count wherever the docs are
 * mounted (`/llms.txt`, `/docs/llms.txt`): docs sites often live under a prefix.
 */
export function readKindOf(input: { path: string; accept?: string | null }): ReadKind {
  const { path } = input;
  const slash = path.lastIndexOf('/');
  // Cheap exit before any lowercasing: nearly every path is a page whose last segment is not llms*.
  if (path.length - slash - 1 <= 13 && path.length - slash - 1 >= 8) {
    const name = path.slice(slash + 1).toLowerCase();
    if (name === 'llms.txt') return 'llms-txt';
    if (name === 'llms-full.txt') return 'llms-full-txt';
  }
  return isMarkdownRequest(input) ? 'markdown' : 'page';
}
