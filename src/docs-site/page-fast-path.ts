import { chooseExtensions, tokenize } from './micromark-events.js';
import { walkEvents } from './page-event-walk.js';
import type { TreeNode } from './tree-node.js';

/**
 * The nodes the page checks read, without building the syntax tree (see
 * page-event-walk.ts), or undefined when the full parser must answer: on any syntax
 * error (its message and line are the full parser's), and on whatever the walk does
 * not reproduce exactly. Measured on the benchmark's 3–6 KB pages (bench/docs-suite.ts)
 * on the 2-core machine: the full parse about 3.2 ms a page, this about 1.3 ms.
 *
 * `source` as page-parser.ts takes it (mintlify-source.ts prepared it).
 */
export function fastPageNodes(source: string, format: 'md' | 'mdx'): TreeNode[] | undefined {
  let events;
  try {
    events = tokenize(source, chooseExtensions(source, format));
  } catch {
    // A syntax error (or nesting too deep for the tokenizer): the full parser reports it.
    return undefined;
  }
  const walked = walkEvents(events, autolinkTriggers(source));
  return 'unsupported' in walked ? undefined : walked.nodes;
}

// What a GFM autolink literal needs: the `@` of an e-mail, `://` after http(s), `www.`.
const AUTOLINK_TRIGGER = /@|:\/\/|www\./gi;

/** Offsets where a trigger starts, ascending. */
function autolinkTriggers(source: string): number[] {
  const offsets: number[] = [];
  for (const match of source.matchAll(AUTOLINK_TRIGGER)) offsets.push(match.index);
  return offsets;
}
