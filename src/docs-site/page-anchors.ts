import GithubSlugger from 'github-slugger';
import { htmlAttributeValues } from './html-attributes.js';
import { attributeString, isJsxElement, namedAttributes } from './jsx-attribute.js';
import { nodeRange, walkTree, type TreeNode } from './tree-node.js';

/**
 * The fragment ids a page defines, from its nodes in document order (see page-links.ts): each heading's id and the
 * `id="…"` of HTML and JSX elements (Mintlify's own pages wrap translated headings in
 * `<div id="…">`). A heading's id is its `{#custom-id}` when it has one
 * (https://www.mintlify.com/docs/create/text, "Custom heading IDs"), otherwise the
 * GitHub slug of its text, as Mintlify generates anchors: lowercase, spaces to hyphens,
 * punctuation dropped, a repeated slug suffixed -1, -2 … (github-slugger).
 *
 * `customIds`: the custom ids by line, from mintlify-source.ts.
 */
export function collectAnchors(nodes: readonly TreeNode[], text: string, customIds: ReadonlyMap<number, string>): string[] {
  const anchors: string[] = [];
  const slugger = new GithubSlugger();
  for (const node of nodes) {
    if (node.type === 'heading') {
      const custom = customIds.get(node.position?.start.line ?? 0);
      anchors.push(custom ?? slugger.slug(plainText(node)));
    } else if (node.type === 'html') {
      const range = nodeRange(node);
      if (range !== undefined) for (const found of htmlAttributeValues(text, 'id', range.start, range.end)) anchors.push(found.value);
    } else if (isJsxElement(node)) {
      for (const attribute of namedAttributes(node, 'id')) {
        const found = attributeString(attribute);
        if (found !== undefined) anchors.push(found.value);
      }
    }
  }
  return anchors;
}

/**
 * The text a heading shows, as mdast-util-to-string reads it: text, inline code and math
 * values, image alt text. MDX expressions (`{x}`) render computed values, which cannot be
 * known here, so they add nothing.
 */
function plainText(heading: TreeNode): string {
  const parts: string[] = [];
  walkTree(heading, (node) => {
    if (node.type === 'mdxTextExpression' || node.type === 'mdxFlowExpression') return;
    if (typeof node.value === 'string' && node.children === undefined) parts.push(node.value);
    else if (node.type === 'image' && typeof node.alt === 'string') parts.push(node.alt);
  });
  return parts.join('');
}
