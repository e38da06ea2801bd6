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
    const line = locator.lineOf(reference);
    const resolved = pages.resolvePage(reference, docsRoot);
    if (resolved === 'outside') {
      problems.push({ path: configPath, line, kind: 'navigation', message: `Navigation page "${reference}" points outside the workspace.` });
    } else if (resolved === undefined) {
      const base = path.posix.join(docsRoot, reference.replace(/^\/+/, ''));
      const expected = /\.mdx?$/i.test(base) ? base : `${base}.mdx or ${base}.md`;
      problems.push({ path: configPath, line, kind: 'navigation', message: `Navigation page "${reference}" does not exist (expected ${expected}).` });
    }
  };
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) visit(item);
      return;
    }
    if (node === null || typeof node !== 'object') return;
    const record = node as Record<string, unknown>;
    if (Array.isArray(record.pages)) {
      for (const entry of record.pages) {
        if (typeof entry === 'string') checkReference(entry);
        else visit(entry);
      }
    }
    // A docs.json group may name a landing page of its own.
    if (typeof record.root === 'string') checkReference(record.root);
    for (const key of NESTING_KEYS) if (key in record) visit(record[key]);
  };
  visit((config as Record<string, unknown>).navigation);
  return problems;
}

/** Finds the line of each referenced string in document order, so repeated names get their own line. */
class StringLocator {
  private cursor = 0;
  constructor(private readonly text: string) {}

  lineOf(value: string): number | undefined {
    const needle = JSON.stringify(value);
    let index = this.text.indexOf(needle, this.cursor);
    if (index === -1) index = this.text.indexOf(needle);
    if (index === -1) return undefined;
    this.cursor = index + needle.length;
    return lineAt(this.text, index);
  }
}

function lineOfJsonError(text: string, message: string): number | undefined {
  const lineColumn = /line (\d+)/.exec(message);
  if (lineColumn) return Number(lineColumn[1]);
  const position = /position (\d+)/.exec(message);
  return position ? lineAt(text, Number(position[1])) : undefined;
}

function lineAt(text: string, index: number): number {
  let line = 1;
  for (let at = text.indexOf('\n'); at !== -1 && at < index; at = text.indexOf('\n', at + 1)) line += 1;
  return line;
}
