import path from 'node:path';
import { realpath } from 'node:fs/promises';
import type { ToolContext } from './tool-context.js';
import type { DocsCheckReport, DocsProblem } from './docs-problem.js';
import { globWorkspace } from './workspace-glob.js';
import { PageIndex } from './page-index.js';
import { analyzePage } from './page-analysis.js';
import { checkFrontmatter, splitFrontmatter } from './frontmatter.js';
import { checkNavigation, SITE_CONFIG_NAMES } from './navigation-check.js';
import { readBytes, decodeText } from './text-file.js';

// Dependencies and build output are not the documentation being edited.
const IGNORED = ['**/node_modules/**', '**/.next/**', '**/.mintlify/**'];

/**
 * Checks the documentation in the workspace: MDX syntax, YAML frontmatter, internal links
 * and the navigation of every docs.json / mint.json. Reads only files listed by the
 * sandboxed glob, never following symbolic links.
 */
export interface CheckDocsOptions {
  /**
   * Compile and link-check only these pages (navigation is always checked in full).
   * Compiling is the expensive part: a large site takes seconds.
   */
  pages?: readonly string[];
}

export async function checkDocs(context: ToolContext, options: CheckDocsOptions = {}): Promise<DocsCheckReport> {
  const { limits } = context;
  const root = await realpath(context.workspace);
  const files = await globWorkspace(root, '**/*', { maxPatternLength: limits.maxQueryLength, ignore: IGNORED });
  const index = new PageIndex(files);
  const configs = files.filter((file) => (SITE_CONFIG_NAMES as readonly string[]).includes(path.posix.basename(file)));
  const docsRoots = configs.map((config) => path.posix.dirname(config)).map((directory) => (directory === '.' ? '' : directory));
  const pages = files.filter((file) => /\.mdx?$/i.test(file));

  const collector = new ProblemCollector(limits.maxProblems);
  const readable = async (relative: string): Promise<string | undefined> => {
    const bytes = await readBytes(path.join(root, ...relative.split('/')), relative, limits.maxFileBytes).catch(() => undefined);
    return bytes === undefined ? undefined : decodeText(bytes);
  };

  for (const config of configs) {
    const text = await readable(config);
    if (text === undefined) {
      collector.add({ path: config, kind: 'navigation', message: `${config} could not be read as text.` });
      continue;
    }
    collector.addAll(checkNavigation(config, text, index));
  }

  const only = options.pages === undefined ? null : new Set(options.pages);
  const checked = (only === null ? pages : pages.filter((page) => only.has(page))).slice(0, limits.maxScannedFiles);
  let filesChecked = 0;
  for (const page of checked) {
    if (collector.full) break;
    filesChecked += 1;
    const text = await readable(page);
    if (text === undefined) {
      collector.add({ path: page, kind: 'mdx-syntax', message: `${page} is binary, unreadable or above ${limits.maxFileBytes} bytes.` });
      continue;
    }
    const { frontmatter, body } = splitFrontmatter(text);
    if (frontmatter !== undefined) collector.addAll(checkFrontmatter(page, frontmatter));
    const analysis = await analyzePage(page, body, page.toLowerCase().endsWith('.mdx') ? 'mdx' : 'md');
    collector.addAll(analysis.problems);
    const docsRoot = nearestDocsRoot(page, docsRoots);
    for (const link of analysis.links) {
      const resolution = index.resolveLink(link.target, page, docsRoot);
      if (resolution === 'missing') {
        collector.add({ path: page, line: link.line, kind: 'broken-link', message: `Link "${link.target}" does not point to an existing page or file.` });
      } else if (resolution === 'outside') {
        collector.add({ path: page, line: link.line, kind: 'broken-link', message: `Link "${link.target}" points outside the workspace.` });
      }
    }
  }

  let truncated = false;
  const candidates = only === null ? pages.length : pages.filter((page) => only.has(page)).length;
  if (candidates > checked.length) {
    truncated = true;
    collector.force({ path: '.', kind: 'limit', message: `Only the first ${checked.length} of ${candidates} pages were checked.` });
  }
  if (collector.dropped > 0 || filesChecked < checked.length) {
    truncated = true;
    collector.force({
      path: '.',
      kind: 'limit',
      message: `The check stopped after ${limits.maxProblems} problems (${filesChecked} of ${checked.length} pages checked); fix these and run it again.`,
    });
  }
  return { problems: collector.problems, filesChecked, truncated };
}

/** The deepest directory holding a site configuration that contains `page`; '' otherwise. */
function nearestDocsRoot(page: string, docsRoots: readonly string[]): string {
  let best = '';
  for (const root of docsRoots) {
    if ((root === '' || page.startsWith(`${root}/`)) && root.length > best.length) best = root;
  }
  return best;
}

class ProblemCollector {
  readonly problems: DocsProblem[] = [];
  dropped = 0;
  constructor(private readonly max: number) {}

  get full(): boolean {
    return this.problems.length >= this.max;
  }

  add(problem: DocsProblem): void {
    if (this.full) this.dropped += 1;
    else this.problems.push(problem);
  }

  addAll(problems: readonly DocsProblem[]): void {
    for (const problem of problems) this.add(problem);
  }

  /** Adds a note about the caps even when the list is full, so truncation is never silent. */
  force(problem: DocsProblem): void {
    this.problems.push(problem);
  }
}
