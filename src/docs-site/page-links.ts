import { htmlAttributeValues } from './html-attributes.js';
import { attributeString, isJsxElement, namedAttributes } from './jsx-attribute.js';
import { attributeValueRange, definitionUrlRange, linkUrlRange, UNKNOWN_RANGE } from './link-offsets.js';
import { nodeRange, type TreeNode } from './tree-node.js';

/**
 * A link target in a page. `start`/`end`: UTF-16 offsets of the target text itself in
 * the original page text, so `text.slice(start, end) === target` and a caller can rewrite
 * just the URL; both -1 when not exactly known (a JSX expression, an escaped URL).
 */
export interface PageLink {
  target: string;
  line: number;
  start: number;
  end: number;
}

/**
 * Link targets of a parsed page, from its nodes in document order (the syntax tree
 * walked, or page-event-walk.ts): Markdown links and autolinks, reference definitions
 * (`[x]: ./y`), `href` in raw HTML (Markdown pages) and in JSX attributes, including
 * constant expressions (`href={"/x"}`). Code, inline code and math are leaves whose
 * text is never looked into, so nothing in them is a link. Reference-style uses
 * (`[text][x]`) are not listed: their target is the definition's.
 */
export function collectLinks(nodes: readonly TreeNode[], text: string): PageLink[] {
  const links: PageLink[] = [];
  for (const node of nodes) {
    const line = node.position?.start.line ?? 1;
    if (node.type === 'link' && typeof node.url === 'string') {
      links.push({ target: node.url, line, ...linkUrlRange(text, node, node.url) });
    } else if (node.type === 'definition' && typeof node.url === 'string') {
      links.push({ target: node.url, line, ...definitionUrlRange(text, node, node.url) });
    } else if (node.type === 'html') {
      collectHtmlLinks(node, text, links);
    } else if (isJsxElement(node)) {
      for (const attribute of namedAttributes(node, 'href')) {
        const found = attributeString(attribute);
        if (found === undefined) continue;
        const range = found.literal ? attributeValueRange(text, attribute, found.value) : UNKNOWN_RANGE;
        links.push({ target: found.value, line: attribute.position?.start.line ?? line, ...range });
      }
    }
  }
  return links;
}

/**
 * `href="…"` in a raw HTML node, read from the page text rather than the node's value,
 * which loses the `>` of enclosing block quotes and so the offsets. Lines are counted on
 * from the previous match: counting from the node's start for each one took time
 * quadratic in the size of an HTML block full of links.
 */
function collectHtmlLinks(node: TreeNode, text: string, links: PageLink[]): void {
  const range = nodeRange(node);
  if (range === undefined) return;
  let line = node.position?.start.line ?? 1;
  let counted = range.start;
  for (const found of htmlAttributeValues(text, 'href', range.start, range.end)) {
    line += countNewlines(text, counted, found.start);
    counted = found.start;
    links.push({ target: found.value, line, start: found.start, end: found.end });
  }
}

function countNewlines(text: string, from: number, to: number): number {
  let count = 0;
  for (let index = text.indexOf('\n', from); index !== -1 && index < to; index = text.indexOf('\n', index + 1)) count += 1;
  return count;
}
