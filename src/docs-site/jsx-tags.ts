import type { Token, TokenizeContext } from 'micromark-util-types';
import type { TreeNode } from './tree-node.js';

/**
 * JSX tags read from micromark's events the way mdast-util-mdx-jsx reads them (its
 * `enterMdxJsxTag` … `exitMdxJsxTag`, token text through `sliceSerialize` as there):
 * name, attributes with their positions and values,
 * and the element an opening tag starts. Where mdast-util-mdx-jsx or from-markdown
 * would throw, or where this does not follow it exactly, the answer is a reason to
 * leave the page to the full parser, never a guess:
 *   - a closing tag with nothing open, with attributes, self-closing, or naming another
 *     element than the innermost open one; an element left open at the end;
 *   - an element closed in another block than the one it was opened in. from-markdown
 *     closes nodes in the order their tokens close and throws when a closing tag comes
 *     while another node is open; micromark's tokens nest, so a closing tag that is a
 *     sibling token of its opening tag (same parent, same list item, since from-markdown
 *     makes a list item of each `listItemPrefix`) finds its element innermost;
 *   - a literal value with a character reference (mdast-util-mdx-jsx decodes it with
 *     parse-entities), a value or expression over several lines.
 */
export class JsxTags {
  private tag: OpenTag | undefined;
  private readonly elements: OpenElement[] = [];
  /** The attribute value being read: its pieces. */
  private valuePieces: string[] | undefined;

  /** Elements open now. */
  depth(): number {
    return this.elements.length;
  }

  inTag(): boolean {
    return this.tag !== undefined;
  }

  /** A tag token starts; `parent` is the token it is in (none at the top level). */
  open(token: Token, parent: Token | undefined, item: number): string | undefined {
    this.tag = { token, parent, item, name: '', close: false, selfClosing: false, attributes: [] };
    return undefined;
  }

  /** A token inside the tag starts; `context` is the one its event carries. */
  enter(token: Token, context: TokenizeContext): string | undefined {
    const tag = this.tag;
    if (tag === undefined) return undefined;
    const kind = suffix(token.type);
    switch (kind) {
      case 'ClosingMarker':
        if (this.elements.length === 0) return 'closing tag with nothing open';
        tag.close = true;
        return undefined;
      case 'SelfClosingMarker':
        if (tag.close) return 'self-closing closing tag';
        tag.selfClosing = true;
        return undefined;
      case 'Attribute':
        if (tag.close) return 'attribute in a closing tag';
        tag.attributes.push({ type: 'mdxJsxAttribute', name: '', value: null, position: { start: point(token.start), end: point(token.end) } });
        return undefined;
      case 'ExpressionAttribute':
        if (tag.close) return 'attribute in a closing tag';
        tag.attributes.push({ type: 'mdxJsxExpressionAttribute', position: { start: point(token.start), end: point(token.end) } });
        return undefined;
      case 'AttributeValueLiteral':
      case 'AttributeValueExpression':
        this.valuePieces = [];
        return undefined;
      case 'AttributeValueLiteralValue':
      case 'AttributeValueExpressionValue':
        this.valuePieces?.push(context.sliceSerialize(token));
        return undefined;
      default:
        return undefined;
    }
  }

  /** A token inside the tag ends. */
  exit(token: Token, context: TokenizeContext): string | undefined {
    const tag = this.tag;
    if (tag === undefined) return undefined;
    const attribute = tag.attributes.at(-1);
    switch (suffix(token.type)) {
      case 'NamePrimary':
        tag.name = context.sliceSerialize(token);
        return undefined;
      case 'NameMember':
        tag.name += `.${context.sliceSerialize(token)}`;
        return undefined;
      case 'NameLocal':
        tag.name += `:${context.sliceSerialize(token)}`;
        return undefined;
      case 'AttributeNamePrimary':
        if (attribute === undefined) return 'attribute name outside an attribute';
        attribute.name = context.sliceSerialize(token);
        attribute.position = { start: attribute.position?.start ?? point(token.start), end: point(token.end) };
        return undefined;
      case 'AttributeNameLocal':
        if (attribute === undefined) return 'attribute name outside an attribute';
        attribute.name = `${attribute.name ?? ''}:${context.sliceSerialize(token)}`;
        attribute.position = { start: attribute.position?.start ?? point(token.start), end: point(token.end) };
        return undefined;
      case 'AttributeValueLiteral': {
        const value = this.takeValue();
        if (attribute === undefined || value === undefined) return 'attribute value over several lines';
        if (value.includes('&')) return 'character reference in an attribute value';
        attribute.value = value;
        attribute.position = { start: attribute.position?.start ?? point(token.start), end: point(token.end) };
        return undefined;
      }
      case 'AttributeValueExpression': {
        const value = this.takeValue();
        if (attribute === undefined || value === undefined) return 'attribute expression over several lines';
        attribute.value = { type: 'mdxJsxAttributeValueExpression', value };
        attribute.position = { start: attribute.position?.start ?? point(token.start), end: point(token.end) };
        return undefined;
      }
      default:
        return undefined;
    }
  }

  /** The tag token ends: the element it opens, if any. */
  close(token: Token): { element: TreeNode | undefined } | { unsupported: string } {
    const tag = this.tag;
    this.tag = undefined;
    if (tag === undefined) return { unsupported: 'tag end without a start' };
    if (tag.close) {
      const innermost = this.elements.pop();
      if (innermost?.name !== tag.name) return { unsupported: 'closing tag of another element' };
      if (innermost.type !== token.type || innermost.parent !== tag.parent || innermost.item !== tag.item)
        return { unsupported: 'element closed in another block' };
      return { element: undefined };
    }
    const tokenType: string = token.type;
    const element: TreeNode = {
      type: tokenType === 'mdxJsxTextTag' ? 'mdxJsxTextElement' : 'mdxJsxFlowElement',
      name: tag.name === '' ? null : tag.name,
      attributes: tag.attributes,
      position: { start: point(token.start), end: point(token.end) },
    };
    if (!tag.selfClosing) this.elements.push({ name: tag.name, type: token.type, parent: tag.parent, item: tag.item });
    return { element };
  }

  /** Why the page cannot be read here if an element is still open at its end. */
  unclosed(): string | undefined {
    return this.tag !== undefined || this.elements.length > 0 ? 'element left open' : undefined;
  }

  private takeValue(): string | undefined {
    const pieces = this.valuePieces ?? [];
    this.valuePieces = undefined;
    return pieces.length > 1 ? undefined : (pieces[0] ?? '');
  }
}

interface OpenTag {
  token: Token;
  parent: Token | undefined;
  item: number;
  name: string;
  close: boolean;
  selfClosing: boolean;
  attributes: TreeNode[];
}

interface OpenElement {
  name: string;
  type: string;
  parent: Token | undefined;
  item: number;
}

/** `mdxJsxFlowTagAttributeNamePrimary` → `AttributeNamePrimary`: flow and text tags have the same parts. */
function suffix(type: string): string {
  if (type.startsWith('mdxJsxFlowTag')) return type.slice('mdxJsxFlowTag'.length);
  if (type.startsWith('mdxJsxTextTag')) return type.slice('mdxJsxTextTag'.length);
  return '';
}

function point(place: Token['start']): { line: number; offset: number } {
  return { line: place.line, offset: place.offset };
}
