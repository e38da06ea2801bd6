import { decodeString } from 'micromark-util-decode-string';
import type { Event, Token } from 'micromark-util-types';
import { JsxTags } from './jsx-tags.js';
import type { TreeNode } from './tree-node.js';

/**
 * The nodes the page checks read (links, definitions, headings with their text, raw
 * HTML, JSX elements with their attributes), in the order a walk of the syntax tree
 * visits them, read straight from micromark's events instead of the tree
 * mdast-util-from-markdown builds from them: building that tree (and the GFM autolink
 * transform run over it) took about as long as tokenizing. Each node is what
 * from-markdown would make of the same tokens, down to the fields page-links.ts and
 * page-anchors.ts read; a walk of the full tree is the reference and
 * test/docs-site/page-fast-path.test.ts compares the two.
 *
 * What this walk does not reproduce it reports as `unsupported`, and the page goes to
 * the full parser: whatever from-markdown could reject (JSX tags closed out of order or
 * in another block, see jsx-tags.ts), and inside headings, link text and image text any
 * token whose node it does not model.
 *
 * A GFM autolink literal (`https://…`, `www.…`, an e-mail address in text) is also left
 * to the full parser: micromark-events.ts leaves the extension out, and from-markdown
 * runs a transform over text nodes that links what the extension did not. Both need an
 * `@`, `://` or `www.` in text: in `data` outside strings (link destinations and titles,
 * reference labels, code fence info, which no text construct reads), or made by an
 * escape or character reference (`a&#64;b.c`), which only the transform sees.
 */
export type WalkResult = { nodes: TreeNode[] } | { unsupported: string };

/** Tokens whose `data` is string content, where no text construct is tried. */
const STRING_CONTENT = new Set([
  'resourceDestinationString',
  'resourceTitleString',
  'definitionDestinationString',
  'definitionLabelString',
  'definitionTitleString',
  'referenceString',
  'codeFencedFenceInfo',
  'codeFencedFenceMeta',
  'mathFlowFenceMeta',
]);

/** Inside a link's text: tokens that make (or extend) a child node of the link, so its end is the last child's end. */
const LABEL_CHILDREN = new Set([
  'data',
  'characterEscape',
  'characterReference',
  'lineEnding',
  'emphasis',
  'strong',
  'strikethrough',
  'codeText',
  'mathText',
  'image',
  'htmlText',
  'autolink',
  'hardBreakEscape',
  'hardBreakTrailing',
  'mdxTextExpression',
  'mdxJsxTextTag',
]);

/** Tokens that make no node (from-markdown has no handler for them). */
const NO_NODE = new Set(['linePrefix', 'lineSuffix', 'whitespace']);

/** Tokens whose text is a node's value: from-markdown's `onexitdata` (a raw slice). */
const TEXT_VALUES = new Set(['data', 'characterEscapeValue', 'codeTextData', 'mathTextData', 'htmlTextData', 'autolinkProtocol', 'autolinkEmail']);

/** Tokens inside heading or image text whose content is no part of the text (mdast-util-to-string, page-anchors.ts). */
const SKIPPED_IN_TEXT = new Set(['resource', 'reference', 'mdxTextExpression']);

/** The other tokens heading text may hold: wrappers and markers whose text nodes are the tokens above. */
const TEXT_STRUCTURE = new Set([
  'emphasis',
  'emphasisSequence',
  'emphasisText',
  'strong',
  'strongSequence',
  'strongText',
  'strikethrough',
  'strikethroughSequence',
  'strikethroughText',
  'codeText',
  'codeTextSequence',
  'codeTextPadding',
  'mathText',
  'mathTextSequence',
  'mathTextPadding',
  'characterEscape',
  'characterEscapeMarker',
  'characterReferenceMarker',
  'characterReferenceMarkerNumeric',
  'characterReferenceMarkerHexadecimal',
  'characterReferenceMarkerSemi',
  'characterReferenceValue',
  'link',
  'image',
  'label',
  'labelLink',
  'labelImage',
  'labelMarker',
  'labelImageMarker',
  'labelEnd',
  'labelText',
  'autolink',
  'autolinkMarker',
  'htmlText',
  'hardBreakEscape',
  'hardBreakTrailing',
  'linePrefix',
  'lineSuffix',
  'whitespace',
]);

/** What an image's text may hold: its alt text is made of it, and anything making a node there is not in the tree. */
const IMAGE_TEXT = new Set([...TEXT_VALUES, ...TEXT_STRUCTURE, 'characterReference', 'lineEnding', 'resource', 'reference']);
for (const type of ['link', 'htmlText', 'autolink', 'autolinkMarker', 'autolinkProtocol', 'autolinkEmail', 'hardBreakEscape', 'hardBreakTrailing']) {
  IMAGE_TEXT.delete(type);
}

/**
 * Deeper than this (tokens plus open JSX elements), a page goes to the full parser: its
 * tree walks recurse, and a page nested thousands deep overflows its stack there and is
 * reported (page-parser.ts), where this iterative walk would not. Real pages nest a few
 * dozen deep at most.
 */
const MAX_DEPTH = 256;

const HEADINGS = new Set(['atxHeading', 'setextHeading']);
const HEADING_TEXT = new Set(['atxHeadingText', 'setextHeadingText']);

interface Frame {
  token: Token;
  /** `listItemPrefix` children seen so far: from-markdown makes a list item of each. */
  items: number;
}

interface LinkState {
  node: TreeNode;
  /** The frame of its `labelText`, once entered. */
  labelText: Frame | undefined;
  lastChildEnd: number | undefined;
  resource: boolean;
}

/** Characters an escape or reference in text may not make: they could complete an autolink trigger. */
const AUTOLINK_CHARACTERS = /[@:/.wW]/;

/**
 * Walks the `events` of a page (see micromark-events.ts); `autolinkTriggers`: ascending
 * offsets of `@`, `://`, `www.` in it. Token text is read with `sliceSerialize`, as
 * from-markdown reads it (a tab's columns a token starts inside are spaces there, NUL
 * is U+FFFD), not sliced from the page.
 */
export function walkEvents(events: Event[], autolinkTriggers: readonly number[]): WalkResult {
  const nodes: TreeNode[] = [];
  const stack: Frame[] = [];
  const tags = new JsxTags();
  let link: LinkState | undefined;
  let definition: TreeNode | undefined;
  let heading: { node: TreeNode; parts: string[] } | undefined;
  let headingText = false;
  let imageDepth = 0;
  /** The token whose content is being skipped (inside heading or image text). */
  let skipping: Token | undefined;
  let atHardBreak = false;

  for (const [kind, token, context] of events) {
    // A string: the MDX token types are declared by modules this file does not import.
    const type: string = token.type;
    if (kind === 'enter') {
      if (stack.length + tags.depth() > MAX_DEPTH) return { unsupported: 'nested too deeply' };
      const parent = stack.at(-1);
      if (tags.inTag()) {
        const problem = tags.enter(token, context);
        if (problem !== undefined) return { unsupported: problem };
        stack.push({ token, items: 0 });
        continue;
      }
      if (imageDepth > 0 && skipping === undefined && !IMAGE_TEXT.has(type)) return { unsupported: `${type} in image text` };
      const inText = (headingText || imageDepth > 0) && skipping === undefined;
      if (inText) {
        if (SKIPPED_IN_TEXT.has(type)) skipping = token;
        else if (!TEXT_VALUES.has(type) && !TEXT_STRUCTURE.has(type) && type !== 'characterReference' && type !== 'lineEnding' && type !== 'mdxJsxTextTag') {
          return { unsupported: `${type} in heading text` };
        }
      }
      switch (type) {
        case 'data':
          if (inTextContent(parent) && containsTrigger(autolinkTriggers, token.start.offset, token.end.offset)) return { unsupported: 'autolink literal' };
          break;
        case 'characterEscape':
        case 'characterReference':
          if (inTextContent(parent) && AUTOLINK_CHARACTERS.test(decodeString(context.sliceSerialize(token))))
            return { unsupported: 'escaped autolink character' };
          break;
        case 'autolink':
          nodes.push({ type: 'link', url: '', position: place(token) });
          break;
        case 'autolinkProtocol':
        case 'autolinkEmail': {
          // from-markdown: the URL as written, `mailto:` before an e-mail address.
          const autolink = nodes.at(-1);
          if (autolink?.type === 'link') autolink.url = `${type === 'autolinkEmail' ? 'mailto:' : ''}${context.sliceSerialize(token)}`;
          break;
        }
        case 'link':
          if (link !== undefined) return { unsupported: 'link in link' };
          link = { node: { type: 'link', url: '', position: place(token), children: [] }, labelText: undefined, lastChildEnd: undefined, resource: false };
          nodes.push(link.node);
          break;
        case 'labelText':
          if (link !== undefined && imageDepth === 0 && parent?.token.type === 'label') link.labelText = { token, items: 0 };
          break;
        case 'resource':
          if (link !== undefined && imageDepth === 0) link.resource = true;
          break;
        case 'image':
          imageDepth += 1;
          break;
        case 'definition':
          definition = { type: 'definition', url: '', position: place(token) };
          nodes.push(definition);
          break;
        case 'htmlFlow':
        case 'htmlText':
          nodes.push({ type: 'html', position: place(token) });
          break;
        case 'mdxJsxFlowTag':
        case 'mdxJsxTextTag': {
          const problem = tags.open(token, parent?.token, parent?.items ?? 0);
          if (problem !== undefined) return { unsupported: problem };
          break;
        }
        case 'listItemPrefix':
          if (parent !== undefined) parent.items += 1;
          break;
        default:
          if (HEADINGS.has(type)) {
            heading = { node: { type: 'heading', position: place(token), children: [] }, parts: [] };
            nodes.push(heading.node);
          } else if (HEADING_TEXT.has(type) && heading !== undefined) {
            headingText = true;
          }
      }
      if (type === 'lineEnding' && atHardBreak) {
        // from-markdown adds a line ending to the text, except the one a hard break takes.
        atHardBreak = false;
      } else if (inText && skipping === undefined && heading !== undefined) {
        if (TEXT_VALUES.has(type) || type === 'lineEnding') heading.parts.push(context.sliceSerialize(token));
        else if (type === 'characterReference') heading.parts.push(decodeString(context.sliceSerialize(token)));
      }
      stack.push({ token, items: 0 });
      continue;
    }

    stack.pop();
    const parent = stack.at(-1);
    if (tags.inTag()) {
      if (type === 'mdxJsxFlowTag' || type === 'mdxJsxTextTag') {
        const closed = tags.close(token);
        if ('unsupported' in closed) return closed;
        if (closed.element !== undefined) nodes.push(closed.element);
      } else {
        const problem = tags.exit(token, context);
        if (problem !== undefined) return { unsupported: problem };
      }
    } else {
      if (skipping === token) skipping = undefined;
      switch (type) {
        case 'resourceDestinationString':
          if (link !== undefined && imageDepth === 0) link.node.url = decodeString(context.sliceSerialize(token));
          break;
        case 'definitionDestinationString':
          if (definition !== undefined) definition.url = decodeString(context.sliceSerialize(token));
          break;
        case 'definition':
          definition = undefined;
          break;
        case 'image':
          imageDepth -= 1;
          break;
        case 'link':
          if (link !== undefined) finishLink(link);
          link = undefined;
          break;
        case 'hardBreakEscape':
        case 'hardBreakTrailing':
          atHardBreak = true;
          break;
        default:
          if (HEADING_TEXT.has(type)) headingText = false;
          else if (HEADINGS.has(type) && heading !== undefined) {
            heading.node.children = [{ type: 'text', value: heading.parts.join('') }];
            heading = undefined;
          }
      }
    }
    // A direct child of the link text: from-markdown's last child of the link ends here.
    if (link?.labelText !== undefined && parent?.token === link.labelText.token && imageDepth === 0) {
      if (LABEL_CHILDREN.has(type)) link.lastChildEnd = token.end.offset;
      else if (!NO_NODE.has(type)) return { unsupported: `${type} in link text` };
    } else if (token === link?.labelText?.token) {
      link.labelText = undefined;
    }
  }
  const unclosed = tags.unclosed();
  if (unclosed !== undefined) return { unsupported: unclosed };
  return { nodes };
}

function inTextContent(parent: Frame | undefined): boolean {
  return parent === undefined || !STRING_CONTENT.has(parent.token.type);
}

/** A link is one when it had a `(destination)`; otherwise from-markdown makes a reference of it, which no check reads. */
function finishLink(link: LinkState): void {
  if (!link.resource) {
    link.node.type = 'linkReference';
    return;
  }
  const end = link.lastChildEnd;
  if (end !== undefined) link.node.children = [{ type: 'text', position: { start: { line: 0, offset: end }, end: { line: 0, offset: end } } }];
}

function place(token: Token): NonNullable<TreeNode['position']> {
  return { start: { line: token.start.line, offset: token.start.offset }, end: { line: token.end.line, offset: token.end.offset } };
}

/** Whether a trigger offset (sorted) falls in [start, end). */
function containsTrigger(triggers: readonly number[], start: number, end: number): boolean {
  let low = 0;
  let high = triggers.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((triggers[middle] ?? 0) < start) low = middle + 1;
    else high = middle;
  }
  return low < triggers.length && (triggers[low] ?? end) < end;
}
