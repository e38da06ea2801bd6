import type { TreeNode } from './tree-node.js';

// Linear: anchored, and each alternative is a run of one character class up to a quote.
const STRING_EXPRESSION = /^\s*(?:"([^"\\]*)"|'([^'\\]*)'|`([^`\\$]*)`)\s*$/;

/** A JSX attribute's value as a string, and whether it was written as a literal `"…"`. */
export interface AttributeString {
  value: string;
  literal: boolean;
}

/** `name="x"` or a constant expression such as `name={"x"}`; computed values cannot be checked. */
export function attributeString(attribute: TreeNode): AttributeString | undefined {
  const value = attribute.value;
  if (typeof value === 'string') return { value, literal: true };
  if (value !== null && typeof value === 'object' && 'value' in value && typeof value.value === 'string') {
    const constant = STRING_EXPRESSION.exec(value.value);
    const text = constant?.[1] ?? constant?.[2] ?? constant?.[3];
    if (text !== undefined) return { value: text, literal: false };
  }
  return undefined;
}

export function isJsxElement(node: TreeNode): boolean {
  return node.type === 'mdxJsxFlowElement' || node.type === 'mdxJsxTextElement';
}

/** The plain `name=…` attributes of a JSX element (not `{...spread}`). */
export function namedAttributes(node: TreeNode, name: string): TreeNode[] {
  return (node.attributes ?? []).filter((attribute) => attribute.type === 'mdxJsxAttribute' && attribute.name === name);
}
