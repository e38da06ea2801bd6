import type { DocsProblem } from '../agent/tools/docs-problem.js';
import { checkFrontmatter, splitFrontmatter } from '../agent/tools/frontmatter.js';
import { prepareSource } from './mintlify-source.js';
import { collectAnchors } from './page-anchors.js';
import { collectLinks, type PageLink } from './page-links.js';
import { parsePage } from './page-parser.js';

export type { PageLink } from './page-links.js';

export interface PageAnalysis {
  problems: DocsProblem[];
  links: PageLink[];
  /** Heading ids (Mintlify slug of the heading text, or its `{#custom-id}`) and `id="…"` attributes of HTML/JSX elements. */
  anchors: string[];
}

/**
 * Checks one page's syntax and lists its links and anchors. `text` is the whole file,
 * frontmatter included; `.md` pages are read as Markdown (CommonMark and GFM), all others
 * as MDX, with what Mintlify adds to both (see mintlify-source.ts and page-parser.ts).
 * On a syntax error the page has no links or anchors: its tree is unknown.
 */
export async function analyzePage(path: string, text: string): Promise<PageAnalysis> {
  const problems: DocsProblem[] = [];
  const { frontmatter, bodyStart } = splitFrontmatter(text);
  if (frontmatter !== undefined) problems.push(...checkFrontmatter(path, frontmatter));
  const format = path.toLowerCase().endsWith('.md') ? 'md' : 'mdx';
  const prepared = prepareSource(text, bodyStart, format);
  const parsed = parsePage(path, prepared.source, format);
  if ('problem' in parsed) return { problems: [...problems, parsed.problem], links: [], anchors: [] };
  return { problems, links: collectLinks(parsed.tree, text), anchors: collectAnchors(parsed.tree, text, prepared.customIds) };
}
