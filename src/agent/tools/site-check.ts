import { lstat } from 'node:fs/promises';
import type { DocsProblem } from './docs-problem.js';
import { PageIndex } from './page-index.js';
import { analyzePage } from './page-analysis.js';
import { checkFrontmatter, splitFrontmatter } from './frontmatter.js';
import { checkNavigation } from './navigation-check.js';
import { readBytes, decodeText } from './text-file.js';

/**
 * The checks of one page or site configuration, as a tool worker runs them (see
 * tool-worker-pool.ts): everything whose cost depends on the file's content — YAML,
 * MDX, JSON, link resolution — happens here, off the main thread.
 */

/** What a check needs to know about the site: its files and where its docs.json files are. */
export interface SiteIndex {
  pages: PageIndex;
  /** Directories holding a docs.json or mint.json, '' for the workspace root. */
  docsRoots: readonly string[];
}

/** The site as sent to a worker: file paths joined by NUL, which no path contains (one string copies much faster than an array of them). */
export interface SiteDescription {
  files: string;
  docsRoots: string[];
}

export interface FileCheckRequest {
  /** Workspace-relative path, as reported. */
  path: string;
  /** Real path, already listed by the sandboxed glob. */
  absolute: string;
  /** Larger files are reported, not checked. */
  maxBytes: number;
  /** The worker sends back at most this many problems. */
  maxProblems: number;
}

export interface FileCheckResult {
  problems: DocsProblem[];
  /** Problems found beyond `maxProblems`. */
  dropped: number;
}

export function describeSite(files: readonly string[], docsRoots: readonly string[]): SiteDescription {
  return { files: files.join('\0'), docsRoots: [...docsRoots] };
}

export function createSiteIndex(description: SiteDescription): SiteIndex {
  return { pages: new PageIndex(description.files === '' ? [] : description.files.split('\0')), docsRoots: description.docsRoots };
}

export async function checkPageFile(site: SiteIndex, request: FileCheckRequest): Promise<FileCheckResult> {
  const { path: page } = request;
  const text = await readForCheck(request, (size) => ({
    path: page,
    kind: 'check-limit',
    message: `${page} is ${size} bytes; check_docs compiles pages of at most ${request.maxBytes} bytes, so it was not checked. Split it into smaller pages.`,
  }));
  if (typeof text !== 'string') {
    return capped([text ?? { path: page, kind: 'mdx-syntax', message: `${page} is binary, unreadable or above ${request.maxBytes} bytes.` }], request.maxProblems);
  }
  const problems: DocsProblem[] = [];
  const { frontmatter, body } = splitFrontmatter(text);
  if (frontmatter !== undefined) problems.push(...checkFrontmatter(page, frontmatter));
  const analysis = await analyzePage(page, body, page.toLowerCase().endsWith('.mdx') ? 'mdx' : 'md');
  problems.push(...analysis.problems);
  const docsRoot = nearestDocsRoot(page, site.docsRoots);
  for (const link of analysis.links) {
    const resolution = site.pages.resolveLink(link.target, page, docsRoot);
    if (resolution === 'missing') {
      problems.push({ path: page, line: link.line, kind: 'broken-link', message: `Link "${link.target}" does not point to an existing page or file.` });
    } else if (resolution === 'outside') {
      problems.push({ path: page, line: link.line, kind: 'broken-link', message: `Link "${link.target}" points outside the workspace.` });
    }
  }
  return capped(problems, request.maxProblems);
}

export async function checkConfigFile(site: SiteIndex, request: FileCheckRequest): Promise<FileCheckResult> {
  const { path: config } = request;
  const text = await readForCheck(request, (size) => ({
    path: config,
    kind: 'check-limit',
    message: `${config} is ${size} bytes, above the ${request.maxBytes} bytes check_docs reads; its navigation was not checked.`,
  }));
  if (typeof text !== 'string') {
    return capped([text ?? { path: config, kind: 'navigation', message: `${config} could not be read as text.` }], request.maxProblems);
  }
  return capped(checkNavigation(config, text, site.pages), request.maxProblems);
}

/** The file's text; the problem `tooLarge` makes; or undefined when it is binary or unreadable. */
async function readForCheck(request: FileCheckRequest, tooLarge: (size: number) => DocsProblem): Promise<string | DocsProblem | undefined> {
  const stats = await lstat(request.absolute).catch(() => undefined);
  if (stats !== undefined && stats.isFile() && stats.size > request.maxBytes) return tooLarge(stats.size);
  const bytes = await readBytes(request.absolute, request.path, request.maxBytes).catch(() => undefined);
  return bytes === undefined ? undefined : decodeText(bytes);
}

/** The deepest directory holding a site configuration that contains `page`; '' otherwise. */
function nearestDocsRoot(page: string, docsRoots: readonly string[]): string {
  let best = '';
  for (const root of docsRoots) {
    if ((root === '' || page.startsWith(`${root}/`)) && root.length > best.length) best = root;
  }
  return best;
}

function capped(problems: DocsProblem[], maxProblems: number): FileCheckResult {
  if (problems.length <= maxProblems) return { problems, dropped: 0 };
  return { problems: problems.slice(0, maxProblems), dropped: problems.length - maxProblems };
}
