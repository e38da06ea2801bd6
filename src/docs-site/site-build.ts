import type { DocsProblem } from './docs-problem.js';
import type { DocsTaskRunner } from './docs-task-runner.js';
import { decodeUtf8, type SiteSource, type SourceFile } from './site-source.js';
import type { CheckLimits } from './check-limits.js';
import type { SiteConfig } from './site-config-types.js';
import type { SiteModel } from './link-resolver.js';
import { RedirectTable } from './redirect-table.js';
import { createMintIgnore } from './mint-ignore.js';
import { variantPrefixes } from './variant-prefixes.js';
import { limitMessage } from './page-records.js';
import { basenameOf, dirnameOf, isPageFile, isUnder, joinRoot, relativeToRoot, SITE_CONFIG_NAMES, URL_SCHEME } from './site-paths.js';

/** One published site of the repository: a docs.json / mint.json and the files below it. */
export interface SiteBuild {
  /** Workspace-relative, or null for a repository without a site configuration. */
  configPath: string | null;
  /** The configuration's folder ('' for the repository root). */
  docsRoot: string;
  /** True for a docs-root-relative path .mintignore excludes. */
  ignore: (relative: string) => boolean;
  /** Workspace paths whose change means the site must be built again: the configuration, its `$ref` files, .mintignore, OpenAPI specs. */
  structural: Set<string>;
  config: SiteConfig | null;
  model: SiteModel;
  /** Problems of the configuration itself (JSON, `$ref`, OpenAPI specs). */
  problems: DocsProblem[];
}

/** Sites (docs.json / mint.json folders) checked in one repository. */
export const MAX_SITES = 20;
/** Rounds of "these `$ref` files are needed"; each round reads a level of references. */
const MAX_CONFIG_ROUNDS = 32;

/**
 * The sites of a repository. https://www.mintlify.com/docs/organize/settings: the docs
 * root is the folder holding docs.json (or the older mint.json; docs.json wins when both
 * are there), so in a monorepo the files outside it are not pages. A repository with no
 * configuration is checked as one site rooted at the top, as before.
 */
export function findSiteRoots(files: readonly string[]): Array<{ configPath: string | null; docsRoot: string }> {
  const byFolder = new Map<string, string>();
  for (const file of files) {
    const name = basenameOf(file);
    if (!(SITE_CONFIG_NAMES as readonly string[]).includes(name)) continue;
    const folder = dirnameOf(file);
    const known = byFolder.get(folder);
    if (known === undefined || name === SITE_CONFIG_NAMES[0]) byFolder.set(folder, file);
  }
  if (byFolder.size === 0) return [{ configPath: null, docsRoot: '' }];
  // Every file is matched against every site: a repository of thousands of docs.json
  // files would make that quadratic. Real monorepos hold a few sites; the first ones in
  // path order are checked.
  const roots = [...byFolder].slice(0, MAX_SITES).map(([docsRoot, configPath]) => ({ configPath, docsRoot }));
  return roots.sort((left, right) => right.docsRoot.length - left.docsRoot.length);
}

/** The deepest site holding `path`, or undefined when it lies outside every docs root. */
export function siteOf<Site extends { docsRoot: string }>(sites: readonly Site[], path: string): Site | undefined {
  // Sites come deepest first, so a nested site's files are its own.
  return sites.find((site) => isUnder(path, site.docsRoot));
}

export interface BuildSiteInput {
  root: { configPath: string | null; docsRoot: string };
  /** Every file of the repository. */
  files: readonly string[];
  /** All sites, deepest first (a nested site's files are not this one's). */
  roots: ReadonlyArray<{ docsRoot: string }>;
  source: SiteSource;
  runner: DocsTaskRunner;
  limits: CheckLimits;
}

export async function buildSite(input: BuildSiteInput): Promise<SiteBuild> {
  const { root, source, limits } = input;
  const { docsRoot, configPath } = root;
  const structural = new Set<string>();
  const problems: DocsProblem[] = [];
  const readText = async (paths: string[]): Promise<Map<string, string | null>> => {
    const read = await source.readFiles(paths, limits.maxConfigBytes);
    const texts = new Map<string, string | null>();
    for (const path of paths) texts.set(path, textOf(read.get(path)));
    return texts;
  };

  const ignorePath = joinRoot(docsRoot, '.mintignore');
  structural.add(ignorePath);
  const ignoreText = input.files.includes(ignorePath) ? (await readText([ignorePath])).get(ignorePath) : undefined;
  const ignore = createMintIgnore(ignoreText ?? undefined);

  let config: SiteConfig | null = null;
  let listedFiles: Set<string> | undefined;
  if (configPath !== null) {
    structural.add(configPath);
    const texts = await readText([configPath]);
    for (let round = 0; round < MAX_CONFIG_ROUNDS; round += 1) {
      const outcome = await input.runner.buildConfig({ configPath, texts }, limits.pageTimeoutMs);
      if (outcome.status !== 'done') {
        problems.push({ path: configPath, kind: 'check-limit', message: limitMessage(configPath, outcome) });
        break;
      }
      if (outcome.result.done) {
        config = outcome.result.config;
        break;
      }
      const needed = outcome.result.needs.filter((path) => !texts.has(path));
      if (needed.length === 0) break;
      // A `$ref` is read only when the snapshot lists its target as a regular file: a path
      // through a linked directory (`b/docs.json`, `b -> /another/repo`) is not one, so
      // it is reported missing and nothing outside the checkout is read.
      const listed = (listedFiles ??= new Set(input.files));
      for (const path of needed) if (!listed.has(path)) texts.set(path, null);
      for (const [path, text] of await readText(needed.filter((path) => listed.has(path)))) texts.set(path, text);
    }
    for (const path of texts.keys()) structural.add(path);
    if (config !== null) problems.push(...config.problems);
  }

  const files = new Set<string>();
  for (const file of input.files) {
    if (siteOf(input.roots, file)?.docsRoot !== docsRoot) continue;
    const relative = relativeToRoot(file, docsRoot);
    // https://www.mintlify.com/docs/create/reusable-snippets: files in snippets/ are
    // imported into pages, never published as pages of their own.
    if (ignore(relative) || (isPageFile(relative) && (relative.startsWith('snippets/') || relative.startsWith('_snippets/')))) continue;
    files.add(relative);
  }

  const generated = new Set<string>();
  const unverifiable: string[] = [];
  for (const declared of config?.openapi ?? []) {
    const folder = declared.directory.replace(/^\/+|\/+$/g, '');
    if (URL_SCHEME.test(declared.source)) {
      // A spec on the web cannot be read here: links into its folder are not judged.
      unverifiable.push(folder);
      continue;
    }
    const specPath = joinRoot(docsRoot, declared.source.replace(/^\/+/, ''));
    structural.add(specPath);
    const specText = input.files.includes(specPath) ? (await readText([specPath])).get(specPath) : null;
    if (specText === null || specText === undefined) {
      problems.push({
        path: declared.file,
        ...(declared.line === undefined ? {} : { line: declared.line }),
        kind: 'navigation',
        message: `OpenAPI spec "${declared.source}" does not exist or could not be read.`,
      });
      unverifiable.push(folder);
      continue;
    }
    const outcome = await input.runner.openApiPages({ specText, directory: declared.directory }, limits.pageTimeoutMs);
    if (outcome.status !== 'done' || outcome.result.problem !== undefined) {
      const reason = outcome.status === 'done' ? outcome.result.problem : limitMessage(specPath, outcome);
      problems.push({ path: specPath, kind: 'navigation', message: `OpenAPI spec ${specPath} gives no pages: ${reason}` });
      unverifiable.push(folder);
      continue;
    }
    for (const page of outcome.result.pages) generated.add(page.replace(/^\/+/, ''));
  }

  const prefixes = variantPrefixes(config?.variants ?? []);
  const model: SiteModel = {
    files,
    generated,
    unverifiable,
    redirects: new RedirectTable(config?.redirects ?? []),
    defaultPrefixes: prefixes.defaults,
    variantPrefixes: prefixes.all,
  };
  return { configPath, docsRoot, ignore, structural, config, model, problems };
}

function textOf(file: SourceFile | undefined): string | null {
  return file?.status !== 'read' ? null : (decodeUtf8(file.bytes) ?? null);
}
