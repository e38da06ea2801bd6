/**
 * The part of an mdast / MDX syntax tree node that the page checks read. Declared here
 * rather than imported from `@types/mdast`, which is only a transitive dependency.
 */
export interface TreeNode {
  type: string;
  url?: string;
  value?: unknown;
  alt?: string | null;
  name?: string | null;
  depth?: number;
  attributes?: TreeNode[];
  children?: TreeNode[];
  position?: { start: { line: number; offset?: number }; end: { line: number; offset?: number } };
}

/**
 * Calls `visit` for every node in document order. Iterative: the tree of a hostile page
 * can be thousands of levels deep, and a recursive walk would overflow the stack after
 * the parser itself got through.
 */
export function walkTree(root: TreeNode, visit: (node: TreeNode) => void): void {
  const stack: TreeNode[] = [root];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    visit(node);
    const children = node.children;
    if (children === undefined) continue;
    for (let index = children.length - 1; index >= 0; index -= 1) {
      const child = children[index];
      if (child !== undefined) stack.push(child);
    }
  }
}

/** UTF-16 offsets of a node in the parsed text, when the parser recorded them. */
export function nodeRange(node: TreeNode): { start: number; end: number } | undefined {
  const start = node.position?.start.offset;
  const end = node.position?.end.offset;
  return typeof start === 'number' && typeof end === 'number' ? { start, end } : undefined;
}
