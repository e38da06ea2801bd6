import type { DocsProblem } from './docs-problem.js';
import type { SiteBuild } from './site-build.js';
import { isPageFile, joinRoot, normalizeSitePath, URL_SCHEME } from './site-paths.js';

/** Navigation entries checked between two turns of the event loop. */
const NAVIGATION_SLICE = 2_000;

/**
 * Every page the navigation names (docs.json and the files it pulls in with `$ref`, see
 * https://www.mintlify.com/docs/organize/navigation) must be a published page: a `.mdx`
 * or `.md` file under the docs root that .mintignore does not exclude. Reported in the
 * file and at the line where the entry is written.
 */
export async function navigationProblems(site: SiteBuild, repositoryFiles: ReadonlySet<string>): Promise<DocsProblem[]> {
  const problems: DocsProblem[] = [];
  let sinceYield = 0;
  for (const entry of site.config?.navigation ?? []) {
    // A navigation of 20,000 entries held the event loop for over 100 ms on a slow machine
    // (test/security/event-loop-stall.test.ts): other requests get a turn between slices.
    if (++sinceYield >= NAVIGATION_SLICE) {
      sinceYield = 0;
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    const written = entry.page;
    const trimmed = written.trim();
    if (trimmed === '' || URL_SCHEME.test(trimmed)) continue;
    const at = { path: entry.file, ...(entry.line === undefined ? {} : { line: entry.line }), kind: 'navigation' as const };
    const { path, climbed } = normalizeSitePath('', trimmed.replace(/^\/+/, ''));
    if (climbed) {
      problems.push({ ...at, message: `Navigation page "${written}" points outside the docs site.` });
      continue;
    }
    const candidates = isPageFile(path) ? [path] : [`${path}.mdx`, `${path}.md`];
    if (candidates.some((candidate) => site.model.files.has(candidate)) || site.model.generated.has(path)) continue;
    const inRepository = candidates.map((candidate) => joinRoot(site.docsRoot, candidate));
    if (inRepository.some((candidate) => repositoryFiles.has(candidate))) {
      problems.push({ ...at, message: `Navigation page "${written}" is excluded from the site (by .mintignore, or as a snippet), so it is not published.` });
    } else {
      problems.push({ ...at, message: `Navigation page "${written}" does not exist (expected ${inRepository.join(' or ')}).` });
    }
  }
  return problems;
}
