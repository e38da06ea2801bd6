import type { DocsProblem } from './docs-problem.js';
import { checkFrontmatter, splitFrontmatter } from './frontmatter.js';
import { prepareSource } from './mintlify-source.js';
import { collectAnchors } from './page-anchors.js';
import { collectLinks, type PageLink } from './page-links.js';
import { fastPageNodes } from './page-fast-path.js';
import { parsePage } from './page-parser.js';
import { walkTree, type TreeNode } from './tree-node.js';

export type { PageLink } from './page-links.js';

/**
 * Links and anchors a page hands back. Each is judged on the thread that answers
 * requests (cheap, but a 512 KB page of `[a](/x)` holds 60,000 links), and copied there
 * from the worker: past this a page is reported, not judged link by link.
 */
export const MAX_LINKS_PER_PAGE = 5_000;

export interface PageAnalysis {
  problems: DocsProblem[];
  links: PageLink[];
  /** Heading ids (Mintlify slug of the heading text, or its `{#custom-id}`) and `id="…"` attributes of HTML/JSX elements. */
  anchors: string[];
}

/** Every node of the tree in document order, as page-fast-path.ts lists the ones it reads. */
export function treeNodes(tree: TreeNode): TreeNode[] {
  const nodes: TreeNode[] = [];
  walkTree(tree, (node) => nodes.push(node));
  return nodes;
}

/**
 * Checks one page's syntax and lists its links and anchors. `text` is the whole file,
 * frontmatter included; `.md` pages are read as Markdown (CommonMark and GFM), all others
 * as MDX, with what Mintlify adds to both (see mintlify-source.ts and page-parser.ts).
 * On a syntax error the page has no links or anchors: its tree is unknown. Most pages
 * are read by page-fast-path.ts; the full parser (page-parser.ts) answers for the rest,
 * with the same result (test/docs-site/page-fast-path.test.ts).
 */
export async function analyzePage(path: string, text: string): Promise<PageAnalysis> {
  const problems: DocsProblem[] = [];
  const { frontmatter, bodyStart } = splitFrontmatter(text);
  if (frontmatter !== undefined) problems.push(...checkFrontmatter(path, frontmatter));
  const format = path.toLowerCase().endsWith('.md') ? 'md' : 'mdx';
  const prepared = prepareSource(text, bodyStart, format);
  let nodes = fastPageNodes(prepared.source, format);
  if (nodes === undefined) {
    const parsed = parsePage(path, prepared.source, format);
    if ('problem' in parsed) return { problems: [...problems, parsed.problem], links: [], anchors: [] };
    nodes = treeNodes(parsed.tree);
  }
  const links = collectLinks(nodes, text);
  const anchors = collectAnchors(nodes, text, prepared.customIds).slice(0, MAX_LINKS_PER_PAGE);
  if (links.length <= MAX_LINKS_PER_PAGE) return { problems, links, anchors };
  problems.push({
    path,
    kind: 'check-limit',
    message: `${path} has ${links.length} links; only the first ${MAX_LINKS_PER_PAGE} were checked. Split it into smaller pages.`,
  });
  return { problems, links: links.slice(0, MAX_LINKS_PER_PAGE), anchors };
}
