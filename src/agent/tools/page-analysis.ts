import { compile } from '@mdx-js/mdx';
import type { DocsProblem } from './docs-problem.js';

/** A link target found in a page, with the line it is on. */
export interface PageLink {
  target: string;
  line: number;
}

export interface PageAnalysis {
  problems: DocsProblem[];
  links: PageLink[];
}

/** The part of an mdast / MDX syntax tree node this file reads. */
interface TreeNode {
  type: string;
  url?: string;
  value?: unknown;
  name?: string | null;
  attributes?: TreeNode[];
  children?: TreeNode[];
  position?: { start: { line: number } };
}

interface CompileMessage {
  line?: number;
  reason?: string;
  message: string;
}

const HTML_HREF = /\bhref\s*=\s*(?:"([^"]*)"|'([^']*)')/gi;
const STRING_EXPRESSION = /^\s*(?:"([^"\\]*)"|'([^'\\]*)'|`([^`\\$]*)`)\s*$/;

/**
 * Compiles a page with the MDX compiler (as MDX or as plain Markdown) and collects the
 * link targets from its syntax tree, which skips code blocks and inline code for free.
 * `body` must already have its frontmatter blanked out.
 */
export async function analyzePage(path: string, body: string, format: 'md' | 'mdx'): Promise<PageAnalysis> {
  const links: PageLink[] = [];
  const collectLinks = () => (tree: TreeNode) => {
    walk(tree, links);
  };
  try {
    await compile({ value: body, path }, { format, remarkPlugins: [collectLinks] });
  } catch (error) {
    // The compiler recurses per nesting level (`>>>>…`, nested lists and elements).
    if (error instanceof RangeError) {
      const problem: DocsProblem = { path, kind: 'check-limit', message: `${path} nests quotes, lists or elements too deeply for the MDX compiler (${error.message}); flatten the page.` };
      return { problems: [problem], links: [] };
    }
    const message = error as CompileMessage;
    const problem: DocsProblem = { path, kind: 'mdx-syntax', message: `MDX syntax error: ${message.reason ?? message.message}` };
    if (typeof message.line === 'number') problem.line = message.line;
    return { problems: [problem], links: [] };
  }
  return { problems: [], links };
}

function walk(node: TreeNode, links: PageLink[]): void {
  const line = node.position?.start.line ?? 1;
  if ((node.type === 'link' || node.type === 'definition') && typeof node.url === 'string') {
    links.push({ target: node.url, line });
  } else if (node.type === 'html' && typeof node.value === 'string') {
    // Lines are counted on from the previous match: counting from the start for each one
    // took time quadratic in the size of an HTML block full of links.
    let counted = 0;
    let atLine = line;
    for (const found of node.value.matchAll(HTML_HREF)) {
      atLine += countNewlines(node.value, counted, found.index);
      counted = found.index;
      links.push({ target: found[1] ?? found[2] ?? '', line: atLine });
    }
  } else if ((node.type === 'mdxJsxFlowElement' || node.type === 'mdxJsxTextElement') && node.attributes) {
    for (const attribute of node.attributes) {
      if (attribute.type !== 'mdxJsxAttribute' || attribute.name !== 'href') continue;
      const target = attributeString(attribute.value);
      if (target !== undefined) links.push({ target, line });
    }
  }
  for (const child of node.children ?? []) walk(child, links);
}

/** `href="x"` or a constant expression such as `href={"x"}`; computed values cannot be checked. */
function attributeString(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (value !== null && typeof value === 'object' && 'value' in value && typeof value.value === 'string') {
    const literal = STRING_EXPRESSION.exec(value.value);
    if (literal) return literal[1] ?? literal[2] ?? literal[3];
  }
  return undefined;
}

function countNewlines(text: string, from: number, to: number): number {
  let count = 0;
  for (let index = text.indexOf('\n', from); index !== -1 && index < to; index = text.indexOf('\n', index + 1)) count += 1;
  return count;
}
