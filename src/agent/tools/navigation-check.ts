import path from 'node:path';
import type { DocsProblem } from './docs-problem.js';
import type { PageIndex } from './page-index.js';

/** Names of the Mintlify site configuration files, newest format first. */
export const SITE_CONFIG_NAMES = ['docs.json', 'mint.json'] as const;

// Keys under which docs.json / mint.json nest navigation levels.
const NESTING_KEYS = ['navigation', 'tabs', 'groups', 'anchors', 'dropdowns', 'versions', 'languages', 'products', 'menu', 'items'];
// Entries like "GET /users" or "openapi.json POST /pets" are generated API pages, not files.
const OPENAPI_OPERATION = /^(?:\S+\s+)?(?:GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS|TRACE|WEBHOOK)\s+\S/i;
const SCHEME = /^[a-zA-Z][a-zA-Z0-9+.-]*:/;
/**
 * Levels of arrays and objects below `navigation` that are walked. JSON.parse nests
 * without recursion, but the walk recurses: a config nested a million levels deep would
 * overflow the stack. Real navigation is a few levels deep.
 */
const MAX_NAVIGATION_DEPTH = 100;

/**
 * Checks that every page named in a site configuration's `navigation` exists as an
 * `.mdx` or `.md` file, whichever Mintlify shape it has: an array of groups
 * (`{group, pages: [string | group]}`, mint.json) or an object nesting `tabs`, `groups`,
 * `pages`, `anchors`, `dropdowns`, `versions`, `languages` (docs.json).
 */
export function checkNavigation(configPath: string, text: string, pages: PageIndex): DocsProblem[] {
  let config: unknown;
  try {
    config = JSON.parse(text);
  } catch (error) {
    const problem: DocsProblem = { path: configPath, kind: 'navigation', message: `${configPath} is not valid JSON: ${(error as Error).message}` };
    const line = lineOfJsonError(text, (error as Error).message);
    if (line !== undefined) problem.line = line;
    return [problem];
  }
  if (config === null || typeof config !== 'object' || !('navigation' in config)) return [];
  const docsRoot = path.posix.dirname(configPath) === '.' ? '' : path.posix.dirname(configPath);
  const problems: DocsProblem[] = [];
  const locator = new StringLocator(text);
  const checkReference = (reference: string): void => {
    if (reference.trim() === '' || SCHEME.test(reference) || OPENAPI_OPERATION.test(reference)) return;
    const resolved = pages.resolvePage(reference, docsRoot);
    if (resolved === 'outside') {
      problems.push({ path: configPath, line: locator.lineOf(reference), kind: 'navigation', message: `Navigation page "${reference}" points outside the workspace.` });
    } else if (resolved === undefined) {
      const base = path.posix.join(docsRoot, reference.replace(/^\/+/, ''));
      const expected = /\.mdx?$/i.test(base) ? base : `${base}.mdx or ${base}.md`;
      problems.push({ path: configPath, line: locator.lineOf(reference), kind: 'navigation', message: `Navigation page "${reference}" does not exist (expected ${expected}).` });
    }
  };
  let tooDeep = false;
  const visit = (node: unknown, depth: number): void => {
    if (depth > MAX_NAVIGATION_DEPTH) {
      tooDeep = true;
      return;
    }
    if (Array.isArray(node)) {
      for (const item of node) visit(item, depth + 1);
      return;
    }
    if (node === null || typeof node !== 'object') return;
    const record = node as Record<string, unknown>;
    if (Array.isArray(record.pages)) {
      for (const entry of record.pages) {
        if (typeof entry === 'string') checkReference(entry);
        else visit(entry, depth + 1);
      }
    }
    // A docs.json group may name a landing page of its own.
    if (typeof record.root === 'string') checkReference(record.root);
    for (const key of NESTING_KEYS) if (key in record) visit(record[key], depth + 1);
  };
  visit((config as Record<string, unknown>).navigation, 0);
  if (tooDeep) {
    problems.push({
      path: configPath,
      kind: 'navigation',
      message: `The navigation of ${configPath} nests more than ${MAX_NAVIGATION_DEPTH} levels deep; the entries below that depth were not checked.`,
    });
  }
  return problems;
}

/**
 * Finds the line of each reported string in document order, so repeated names get their
 * own line. Line numbers come from a table of line starts (binary search): counting from
 * the start of the text for every problem took time quadratic in the size of the config.
 */
class StringLocator {
  private cursor = 0;
  private lineStarts: number[] | undefined;
  constructor(private readonly text: string) {}

  lineOf(value: string): number | undefined {
    const needle = JSON.stringify(value);
    let index = this.text.indexOf(needle, this.cursor);
    if (index === -1) index = this.text.indexOf(needle);
    if (index === -1) return undefined;
    this.cursor = index + needle.length;
    this.lineStarts ??= lineStartsOf(this.text);
    return lineAt(this.lineStarts, index);
  }
}

function lineOfJsonError(text: string, message: string): number | undefined {
  const lineColumn = /line (\d+)/.exec(message);
  if (lineColumn) return Number(lineColumn[1]);
  const position = /position (\d+)/.exec(message);
  return position ? lineAt(lineStartsOf(text), Number(position[1])) : undefined;
}

function lineStartsOf(text: string): number[] {
  const starts = [0];
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) starts.push(at + 1);
  return starts;
}

/** The 1-based line whose start is the last one at or before `index`. */
function lineAt(lineStarts: readonly number[], index: number): number {
  let low = 0;
  let high = lineStarts.length - 1;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (lineStarts[middle]! <= index) low = middle;
    else high = middle - 1;
  }
  return low + 1;
}
