import type { ToolContext } from './tool-context.js';
import { assertWritable, resolveForWrite } from './tool-context.js';
import { requireRegularFile } from './require-file.js';
import { isToolFailure } from './tool-failure.js';
import { readText, writeText } from './text-file.js';
import type { SiteState } from '../../docs-site/site-state.js';
import { linkedPath, rewrittenTarget } from '../../docs-site/link-rewrite.js';
import { PAGE_FILE, relativeToRoot, slugKey } from '../../docs-site/site-paths.js';
import { nestingDepth } from '../../docs-site/json-document.js';

/** What move_file changed besides the file itself, so the model and the reviewer can see it. */
export interface MoveReferences {
  /** Pages whose links to the moved file (or, for the moved page, whose relative links) were rewritten. */
  linksUpdated: Array<{ path: string; links: number }>;
  /** Navigation files (docs.json or a `$ref` file) whose entries for the page were rewritten. */
  navigationUpdated: Array<{ path: string; entries: number }>;
  redirectAdded?: { file: string; source: string; destination: string };
  /** References that were left as they were, and why. */
  notUpdated: Array<{ path: string; line?: number; reason: string }>;
}

interface Replacement {
  start: number;
  end: number;
  expected: string;
  text: string;
  line: number;
}

/**
 * Keeps the site whole after `from` moved to `to`: navigation entries name the new page;
 * links that named the old path are rewritten in each linking page's own style (or, with
 * `redirect`, left alone and a redirect added to docs.json, see
 * https://www.mintlify.com/docs/create/redirects); the moved page's relative links are
 * rewritten for its new folder. `state` is the index from before the move. Only exact
 * link text at its recorded offset is replaced, and every edited file passes the write
 * policy like any other edit.
 */
export async function updateMoveReferences(context: ToolContext, state: SiteState, from: string, to: string, redirect: boolean): Promise<MoveReferences> {
  const report: MoveReferences = { linksUpdated: [], navigationUpdated: [], notUpdated: [] };
  const site = state.siteOf(from);
  if (site === undefined || state.siteOf(to) !== site) return report;
  const fromRelative = relativeToRoot(from, site.docsRoot);
  const toRelative = relativeToRoot(to, site.docsRoot);
  const oldKey = slugKey(fromRelative);

  const edits = new Map<string, Replacement[]>();
  const add = (page: string, replacement: Replacement): void => {
    const list = edits.get(page) ?? [];
    list.push(replacement);
    edits.set(page, list);
  };
  const pages = redirect ? [] : state.pagesLookingUp(site.docsRoot, oldKey);
  for (const page of new Set([...pages, from])) {
    const moved = page === from;
    const pageRelative = moved ? toRelative : relativeToRoot(page, site.docsRoot);
    for (const link of state.linksOf(page)) {
      const target = linkedPath(relativeToRoot(page, site.docsRoot), link.target);
      if (target === undefined) continue;
      let text: string | undefined;
      if (target.key === oldKey && !redirect) text = rewrittenTarget(pageRelative, target, link.target, toRelative);
      else if (moved && !target.absolute && target.key !== oldKey) text = rewrittenTarget(pageRelative, target, link.target, target.path);
      if (text === undefined || text === link.target) continue;
      if (link.start < 0) {
        report.notUpdated.push({
          path: moved ? to : page,
          line: link.line,
          reason: `the link "${link.target}" is computed, not plain text; change it by hand`,
        });
        continue;
      }
      add(moved ? to : page, { start: link.start, end: link.end, expected: link.target, text, line: link.line });
    }
  }
  for (const [page, replacements] of edits) {
    const count = await applyReplacements(context, page, replacements, report);
    if (count > 0) report.linksUpdated.push({ path: page, links: count });
  }

  const navigationPage = (written: string): string =>
    `${written.trim().startsWith('/') ? '/' : ''}${PAGE_FILE.test(written.trim()) ? toRelative : toRelative.replace(PAGE_FILE, '')}`;
  const byFile = new Map<string, Replacement[]>();
  for (const entry of site.config?.navigation ?? []) {
    const named = linkedPath('', `/${entry.page.trim().replace(/^\/+/, '')}`);
    if (named?.key !== oldKey) continue;
    if (entry.line === undefined) {
      report.notUpdated.push({ path: entry.file, reason: `the navigation entry "${entry.page}" could not be located` });
      continue;
    }
    const list = byFile.get(entry.file) ?? [];
    list.push({ start: -1, end: -1, expected: JSON.stringify(entry.page), text: JSON.stringify(navigationPage(entry.page)), line: entry.line });
    byFile.set(entry.file, list);
  }
  for (const [file, replacements] of byFile) {
    const count = await applyReplacements(context, file, replacements, report);
    if (count > 0) report.navigationUpdated.push({ path: file, entries: count });
  }

  if (redirect && site.configPath !== null) await addRedirect(context, site.configPath, `/${oldKey}`, `/${slugKey(toRelative)}`, report);
  return report;
}

/**
 * Applies replacements to one file: at recorded offsets (links), or on a recorded line
 * (navigation strings). A replacement whose text is no longer where it was is reported,
 * never guessed.
 */
async function applyReplacements(context: ToolContext, file: string, replacements: Replacement[], report: MoveReferences): Promise<number> {
  let absolute: string;
  let text: string;
  try {
    absolute = await writableFile(context, file);
    text = await readText(absolute, file, context.limits.maxFileBytes);
  } catch (error) {
    if (!isToolFailure(error)) throw error;
    for (const replacement of replacements) report.notUpdated.push({ path: file, line: replacement.line, reason: error.message });
    return 0;
  }
  const located: Replacement[] = [];
  for (const replacement of replacements) {
    const at = replacement.start >= 0 ? replacement : locateOnLine(text, replacement);
    // eslint-disable-next-line @typescript-eslint/prefer-optional-chain -- the chain it suggests would read at.start before the check
    if (at !== undefined && text.slice(at.start, at.end) === at.expected) located.push(at);
    else report.notUpdated.push({ path: file, line: replacement.line, reason: `"${replacement.expected}" is no longer where the index found it` });
  }
  if (located.length === 0) return 0;
  located.sort((left, right) => right.start - left.start);
  let updated = text;
  for (const replacement of located) updated = updated.slice(0, replacement.start) + replacement.text + updated.slice(replacement.end);
  await writeText(absolute, file, updated);
  context.changes.record(file, 'edited');
  return located.length;
}

/**
 * The absolute path of a file the index named, through the workspace resolver like any
 * path the model names: a `$ref` file behind a linked directory (`b/docs.json` with
 * `b -> /another/repo`) is refused, not rewritten.
 */
async function writableFile(context: ToolContext, file: string): Promise<string> {
  const resolved = await resolveForWrite(context, file);
  await requireRegularFile(context, resolved, resolved.relative);
  await assertWritable(context, resolved.relative);
  return resolved.absolute;
}

function locateOnLine(text: string, replacement: Replacement): Replacement | undefined {
  let lineStart = 0;
  for (let line = 1; line < replacement.line; line += 1) {
    const next = text.indexOf('\n', lineStart);
    if (next === -1) return undefined;
    lineStart = next + 1;
  }
  const lineEnd = text.indexOf('\n', lineStart);
  const index = text.slice(lineStart, lineEnd === -1 ? text.length : lineEnd).indexOf(replacement.expected);
  if (index === -1) return undefined;
  return { ...replacement, start: lineStart + index, end: lineStart + index + replacement.expected.length };
}

const MAX_REDIRECT_CONFIG_CHARACTERS = 2 * 1024 * 1024;
const MAX_REDIRECT_CONFIG_DEPTH = 64;

async function addRedirect(context: ToolContext, configPath: string, source: string, destination: string, report: MoveReferences): Promise<void> {
  try {
    const absolute = await writableFile(context, configPath);
    const text = await readText(absolute, configPath, context.limits.maxFileBytes);
    // JSON.parse runs on the thread answering requests: a huge or deeply nested docs.json
    // would hold it (100,000 levels took 105 ms), so such a file is left to a person.
    if (text.length > MAX_REDIRECT_CONFIG_CHARACTERS || nestingDepth(text, MAX_REDIRECT_CONFIG_DEPTH) > MAX_REDIRECT_CONFIG_DEPTH) {
      report.notUpdated.push({
        path: configPath,
        reason: `it is too large or too deeply nested to edit here; add {"source": "${source}", "destination": "${destination}"} to its "redirects"`,
      });
      return;
    }
    const config = JSON.parse(text) as Record<string, unknown>;
    const redirects = config.redirects ?? [];
    if (!Array.isArray(redirects)) {
      report.notUpdated.push({
        path: configPath,
        reason: `its "redirects" is not a list (a $ref?); add {"source": "${source}", "destination": "${destination}"} where they are kept`,
      });
      return;
    }
    config.redirects = [...(redirects as unknown[]), { source, destination }];
    // docs.json is rewritten with the indentation it had.
    const indent = /\n([ \t]+)"/.exec(text)?.[1] ?? '  ';
    await writeText(absolute, configPath, `${JSON.stringify(config, null, indent)}\n`);
    context.changes.record(configPath, 'edited');
    report.redirectAdded = { file: configPath, source, destination };
  } catch (error) {
    if (!isToolFailure(error) && !(error instanceof SyntaxError)) throw error;
    report.notUpdated.push({ path: configPath, reason: `no redirect was added: ${error.message}` });
  }
}
