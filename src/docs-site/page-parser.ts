import { createProcessor } from '@mdx-js/mdx';
import remarkGfm from 'remark-gfm';
import remarkMath from 'remark-math';
import type { DocsProblem } from './docs-problem.js';
import type { TreeNode } from './tree-node.js';

/**
 * Parses a page into its syntax tree without compiling it: the reference reading of a
 * page, used for every page page-fast-path.ts cannot read exactly (syntax errors among
 * them). The check only needs syntax
 * errors and the tree, and `compile()` spends a good part of its time after parsing
 * (mdast to hast to estree to JavaScript). Measured on a realistic 4.2 KB Mintlify page
 * (headings, components, a table, code, links), best of 15 rounds of 20 on the 2-core
 * machine while other work ran on it: the old check's compile() (no GFM, no math)
 * 4.2 ms a page; parse() alone 2.6 ms; parse() with GFM and math 4.6 ms, so GFM, which
 * Mintlify renders, costs about as much as compiling did.
 *
 * The processors are built once per format: `createProcessor` and the first `parse`
 * (which freezes it) cost far more than a parse of a typical page.
 */
type Format = 'md' | 'mdx';

type Processor = ReturnType<typeof createProcessor>;

const processors = new Map<Format, Processor>();

function processorFor(format: Format): Processor {
  let processor = processors.get(format);
  if (processor === undefined) {
    // GFM: Mintlify renders tables, strikethrough, task lists, footnotes and autolink
    // literals (https://www.mintlify.com/docs/create/text). Math: `$…$` inline and
    // `$$…$$` blocks are LaTeX (https://www.mintlify.com/docs/create/text#mathematical-expressions),
    // so braces inside them are not MDX expressions. An unclosed `$$` block runs to the
    // end of its container, as remark-math parses it, and is not an error: Mintlify's
    // docs show only closed blocks and say nothing of an open one failing.
    // Mintlify components (`<Card>`, `<Note>`, `<Tabs>` …) need nothing: to the parser they
    // are plain JSX, which is how Mintlify's MDX renders them.
    processor = createProcessor({ format, remarkPlugins: [remarkGfm, remarkMath] });
    processors.set(format, processor);
  }
  return processor;
}

interface ParseMessage {
  line?: number;
  reason?: string;
  message: string;
}

export type ParseResult = { tree: TreeNode } | { problem: DocsProblem };

/** `source` must already be prepared (see mintlify-source.ts); `path` is for messages. */
export function parsePage(path: string, source: string, format: Format): ParseResult {
  try {
    return { tree: processorFor(format).parse({ value: source, path }) };
  } catch (error) {
    // The parser recurses per nesting level (`>>>>…`, nested lists and elements).
    if (error instanceof RangeError) {
      return {
        problem: {
          path,
          kind: 'check-limit',
          message: `${path} nests quotes, lists or elements too deeply for the MDX parser (${error.message}); flatten the page.`,
        },
      };
    }
    const message = error as ParseMessage;
    const problem: DocsProblem = { path, kind: 'mdx-syntax', message: `MDX syntax error: ${message.reason ?? message.message}` };
    const line = message.line ?? lineInReason(problem.message);
    if (line !== undefined) problem.line = line;
    return { problem };
  }
}

// mdast-util-mdx-jsx reports an element left open at the end of the page without a
// place, naming the opening tag's in its reason instead: "Expected a closing tag for
// `<Note>` (3:1-3:7)". Anchored to the end, and a run of digits per `(`: linear.
const REASON_PLACE = /\((\d+):\d+-\d+:\d+\)$/;

function lineInReason(reason: string): number | undefined {
  const found = REASON_PLACE.exec(reason);
  return found?.[1] === undefined ? undefined : Number(found[1]);
}
