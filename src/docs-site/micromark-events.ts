import { parse, postprocess, preprocess } from 'micromark';
import { gfmFootnote } from 'micromark-extension-gfm-footnote';
import { gfmStrikethrough } from 'micromark-extension-gfm-strikethrough';
import { gfmTable } from 'micromark-extension-gfm-table';
import { gfmTaskListItem } from 'micromark-extension-gfm-task-list-item';
import { math } from 'micromark-extension-math';
import { mdxjs } from 'micromark-extension-mdxjs';
import { combineExtensions } from 'micromark-util-combine-extensions';
import type { Event, Extension } from 'micromark-util-types';

/**
 * micromark's token stream for a page, with the syntax extensions page-parser.ts gives
 * the full parser (through remark-mdx, remark-gfm and remark-math), minus the ones that
 * cannot match anything in this page. Dropping an extension whose constructs all fail
 * changes no event (a failed attempt is undone), only how text is cut into `data`
 * tokens, which the page walk joins back. Each one is kept when its trigger is in the
 * page, checked on the raw text, so text inside code counts too (a false "maybe" costs
 * time, never a wrong answer):
 *   - math: every construct starts with `$`;
 *   - GFM strikethrough: `~` (it also makes `~` an attention marker, which changes how
 *     `*` and `_` next to a `~` flank: again only where a `~` is);
 *   - GFM footnotes: a call or definition starts `[^`;
 *   - GFM tables: the delimiter row holds a `|` (a table with no `|` at all is not one);
 *   - GFM autolink literals are always left out: the `@`, `://` or `www.` they need is
 *     in most pages, but in code or link destinations, where no text construct is
 *     tried. page-event-walk.ts hands a page to the full parser when one stands in text
 *     (`data` outside strings), or when an escape or character reference there could
 *     make one for the GFM transform that links URLs in text nodes.
 * Task list items cost nothing measurable and are always on.
 *
 * The order is the full parser's (mdxjs, gfm, math, with gfm's own order inside):
 * combining prepends or appends each extension's constructs per character, so leaving
 * one out keeps the others' relative order.
 */
export interface ExtensionChoice {
  mdx: boolean;
  footnote: boolean;
  strikethrough: boolean;
  table: boolean;
  math: boolean;
}

/** The extensions the raw `source` may need. */
export function chooseExtensions(source: string, format: 'md' | 'mdx'): ExtensionChoice {
  return {
    mdx: format === 'mdx',
    footnote: source.includes('[^'),
    strikethrough: source.includes('~'),
    table: source.includes('|'),
    math: source.includes('$'),
  };
}

// Built once per combination: creating mdxjs (an acorn parser with JSX) per page costs
// more than the choice saves. At most 2^5 entries.
const extensionSets = new Map<string, Extension[]>();

function extensionsFor(choice: ExtensionChoice): Extension[] {
  const key = `${+choice.mdx}${+choice.footnote}${+choice.strikethrough}${+choice.table}${+choice.math}`;
  let extensions = extensionSets.get(key);
  if (extensions === undefined) {
    // micromark-extension-gfm's gfm() without autolink literals, part by part in its order; remark-gfm and
    // remark-math pass `{}` as options, the defaults.
    const gfmParts: Extension[] = [];
    if (choice.footnote) gfmParts.push(gfmFootnote());
    if (choice.strikethrough) gfmParts.push(gfmStrikethrough({}));
    if (choice.table) gfmParts.push(gfmTable());
    gfmParts.push(gfmTaskListItem());
    extensions = [];
    // remark-mdx calls mdxjs() with no options: acorn with JSX, ES2024 modules, estree results.
    if (choice.mdx) extensions.push(mdxjs());
    extensions.push(combineExtensions(gfmParts));
    if (choice.math) extensions.push(math({}));
    extensionSets.set(key, extensions);
  }
  return extensions;
}

/**
 * The events mdast-util-from-markdown would compile, for `source` as page-parser.ts
 * hands it over. Throws what micromark throws on a syntax error.
 */
export function tokenize(source: string, choice: ExtensionChoice): Event[] {
  return postprocess(
    parse({ extensions: extensionsFor(choice) })
      .document()
      .write(preprocess()(source, undefined, true)),
  );
}
