import { parseDocument } from 'yaml';
import type { DocsProblem } from './docs-problem.js';

export interface Frontmatter {
  yaml: string;
  /** Line number of the first YAML line (the line after the opening `---`). */
  firstLine: number;
  closed: boolean;
}

export interface SplitDocument {
  frontmatter: Frontmatter | undefined;
  /** The text with the frontmatter replaced by empty lines, so line numbers still match. */
  body: string;
  /**
   * Offset in the text where the part kept in `body` starts (after the closing line), 0
   * without a closed frontmatter: callers that need offsets in the original text, not
   * just lines, blank `[0, bodyStart)` themselves.
   */
  bodyStart: number;
}

const OPENING = /^\uFEFF?---[ \t]*\r?\n/;
const MAX_ALIAS_COUNT = 100;

export function splitFrontmatter(text: string): SplitDocument {
  const opening = OPENING.exec(text);
  if (opening === null) return { frontmatter: undefined, body: text, bodyStart: 0 };
  const lines = text.split('\n');
  const closingIndex = lines.findIndex((line, index) => index > 0 && /^(---|\.\.\.)[ \t]*\r?$/.test(line));
  if (closingIndex === -1) {
    return { frontmatter: { yaml: lines.slice(1).join('\n'), firstLine: 2, closed: false }, body: text, bodyStart: 0 };
  }
  const yaml = lines.slice(1, closingIndex).join('\n');
  const body = '\n'.repeat(closingIndex + 1) + lines.slice(closingIndex + 1).join('\n');
  const bodyStart = Math.min(text.length, lines.slice(0, closingIndex + 1).join('\n').length + 1);
  return { frontmatter: { yaml, firstLine: 2, closed: true }, body, bodyStart };
}

/** Problems of a page's YAML frontmatter: unclosed, unparsable, or not a mapping. */
export function checkFrontmatter(path: string, frontmatter: Frontmatter): DocsProblem[] {
  if (!frontmatter.closed) {
    return [{ path, line: 1, kind: 'frontmatter', message: 'The frontmatter opened with "---" is never closed by a "---" line.' }];
  }
  const document = parseDocument(frontmatter.yaml, { prettyErrors: true });
  if (document.errors.length > 0) {
    return document.errors.map((error) => ({
      path,
      line: frontmatter.firstLine + (error.linePos?.[0].line ?? 1) - 1,
      kind: 'frontmatter' as const,
      message: `Invalid YAML frontmatter: ${firstLine(error.message)}`,
    }));
  }
  let value: unknown;
  try {
    // A few aliases are legitimate; an alias of an alias of … (the "billion laughs")
    // expands exponentially, and the yaml package stops it at this count.
    value = document.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (error) {
    return [{ path, line: frontmatter.firstLine, kind: 'frontmatter', message: `Invalid YAML frontmatter: ${firstLine((error as Error).message)}` }];
  }
  if (value !== null && value !== undefined && (typeof value !== 'object' || Array.isArray(value))) {
    return [
      {
        path,
        line: frontmatter.firstLine,
        kind: 'frontmatter',
        message: 'The frontmatter must be a mapping of keys to values, such as "title: Introduction".',
      },
    ];
  }
  return [];
}

/** The first line of a yaml error, without its position, which counts from the frontmatter, not the file. */
function firstLine(message: string): string {
  return (message.split('\n')[0] ?? message).replace(/ at line \d+, column \d+:?$/, '');
}
