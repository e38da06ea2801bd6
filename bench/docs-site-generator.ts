/**
 * A seeded Mintlify site of N pages in a git repository, committed on `main`, for the
 * `docs` suite. It carries what makes a real site's check expensive and its answer
 * non-trivial: tabs and groups listing every page, part of the navigation in a `$ref`
 * file, 50 redirects (some `:slug*` wildcards) that links go through, a `.mintignore`d
 * drafts folder full of broken links that must not be reported, 3–6 KB MDX pages with
 * about 20 internal links each, and a few broken links planted in the base.
 *
 * The generator knows where every link lands, so the suite can assert the exact number of
 * problems before and after an edit or a delete: a fast wrong answer does not pass.
 */
import { GIT_ENVIRONMENT } from './jobs/generate-docs-repository.js';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { createSeededRandom } from './lib/seeded-random.js';
import { pageText, sentence, type PageLinkPlan } from './docs-site-pages.js';

/** Bumped whenever the output changes, so a cached site of an older generator is rebuilt. */
const GENERATOR_VERSION = 2;
const MANIFEST = 'docs-bench-site.json';
const LINKS_PER_PAGE = 20;
const CARD_LINKS = 2;
const REDIRECT_LINK_SHARE = 0.1;
const RELATIVE_LINK_SHARE = 0.35;
const EXACT_REDIRECTS = 45;
/** Pages the suite deletes; each is linked from exactly this many other pages. */
const HUB_COUNT = 3;
const HUB_INBOUND = 30;
/** Pages the suite edits to break one link each. */
const EDIT_COUNT = 10;
const BROKEN_SHARE = 0.005;
const IMAGE_FILES = 20;
/** A 1×1 transparent PNG: the images exist, their content does not matter. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');

/** Tabs, each one section folder; the `$ref` tab holds about 15 % of the pages. */
const SECTIONS = [
  { folder: 'get-started', tab: 'Get started', share: 0.1 },
  { folder: 'guides', tab: 'Guides', share: 0.25 },
  { folder: 'concepts', tab: 'Concepts', share: 0.15 },
  { folder: 'api-reference', tab: 'API reference', share: 0.25 },
  { folder: 'integrations', tab: 'Integrations', share: 0.15, ref: 'navigation/integrations.json' },
  { folder: 'deployment', tab: 'Deployment', share: 0.1 },
];
const GROUP_NAMES = ['basics', 'configuration', 'advanced', 'recipes', 'reference', 'security', 'operations', 'migration'];
const GROUP_SIZE = 30;
/** `/v1/concepts/x` → `/concepts/x` and the like: links written before a restructuring. */
const WILDCARDS = [
  { source: '/v1/:slug*', destination: '/:slug*', section: undefined },
  { source: '/docs/guides/:slug*', destination: '/guides/:slug*', section: 'guides' },
  { source: '/reference/:slug*', destination: '/api-reference/:slug*', section: 'api-reference' },
  { source: '/legacy/integrations/:slug*', destination: '/integrations/:slug*', section: 'integrations' },
  { source: '/deploy/:slug*', destination: '/deployment/:slug*', section: 'deployment' },
];

/** One edit the suite makes: replacing `before` by `after` in `page` breaks exactly one link. */
export interface PlannedEdit {
  page: string;
  before: string;
  after: string;
}

export interface GeneratedDocsSite {
  directory: string;
  commit: string;
  /** Published pages (what the checker must report as checked). */
  pageCount: number;
  /** Every published page file, sorted. */
  pageFiles: string[];
  /** Pages under the ignored drafts folder (with broken links that must not be reported). */
  draftCount: number;
  /** Broken links planted in published pages: the base's problems. */
  plantedBroken: number;
  /** Internal links of published pages. */
  linkCount: number;
  pageBytes: number;
  edits: PlannedEdit[];
  /** Pages to delete, each with the number of links (from other published pages) that then break. */
  hubs: Array<{ page: string; inbound: number }>;
  /** A section's index page, linked as `/section/index` and relatively: deleting it must break that many links too. */
  indexPage: { page: string; inbound: number };
}

interface Page {
  /** Without extension: `guides/basics/webhook-retries-12`, or `index`. */
  slug: string;
  section: string;
  title: string;
  links: PageLinkPlan[];
  markers: string[];
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: GIT_ENVIRONMENT, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 }).trim();
}

/**
 * Writes the site into `directory` and commits it, or, when the directory already holds
 * the same site (same generator version, size and seed), resets its working tree to the
 * commit: writing and committing 25,000 pages takes longer than the checks measured on it.
 */
export function generateDocsSite(directory: string, pageCount: number, seed = 25_000): GeneratedDocsSite {
  const manifestPath = join(directory, '.git', MANIFEST);
  if (existsSync(manifestPath)) {
    const cached = JSON.parse(readFileSync(manifestPath, 'utf8')) as { version: number; pageCount: number; seed: number; site: GeneratedDocsSite };
    if (cached.version === GENERATOR_VERSION && cached.pageCount === pageCount && cached.seed === seed) {
      git(directory, 'reset', '-q', '--hard', cached.site.commit);
      git(directory, 'clean', '-q', '-fdx');
      return cached.site;
    }
  }
  rmSync(directory, { recursive: true, force: true });
  mkdirSync(directory, { recursive: true });
  const site = writeSite(directory, pageCount, seed);
  git(directory, 'init', '-q', '-b', 'main');
  git(directory, 'add', '--all');
  git(directory, 'commit', '-q', '-m', `Docs: ${pageCount} pages`);
  // A real repository is packed; the base snapshot is read from the object store.
  git(directory, 'repack', '-a', '-d', '-q');
  site.commit = git(directory, 'rev-parse', 'HEAD');
  writeFileSync(manifestPath, JSON.stringify({ version: GENERATOR_VERSION, pageCount, seed, site }));
  return site;
}

function writeSite(directory: string, pageCount: number, seed: number): GeneratedDocsSite {
  const random = createSeededRandom(seed);
  const randomInt = (below: number): number => Math.floor(random() * below);
  const pages = layOut(pageCount, random);
  const bySection = new Map<string, Page[]>();
  for (const page of pages) bySection.set(page.section, [...(bySection.get(page.section) ?? []), page]);

  // Hubs and edited pages are picked first: ordinary links avoid hubs, so each hub's
  // inbound count is exactly the links planted for it.
  // Hubs are leaf pages; an index page is deleted separately (see `indexPage`).
  const indices = shuffle(
    Array.from({ length: pages.length - 1 }, (_, index) => index + 1).filter((index) => !pages[index]!.slug.endsWith('/index')),
    random,
  );
  const hubs = indices.slice(0, HUB_COUNT).map((index) => pages[index]!);
  const edited = indices.slice(HUB_COUNT, HUB_COUNT + EDIT_COUNT).map((index) => pages[index]!);
  const brokenCount = Math.max(1, Math.round(pages.length * BROKEN_SHARE));
  const broken = new Set(indices.slice(HUB_COUNT + EDIT_COUNT, HUB_COUNT + EDIT_COUNT + brokenCount).map((index) => pages[index]!));
  const hubSet = new Set(hubs);
  const ordinary = pages.filter((page) => !hubSet.has(page));
  const ordinaryTarget = (): Page => ordinary[randomInt(ordinary.length)]!;

  const redirects: Array<{ source: string; destination: string }> = [];
  for (let index = 0; index < EXACT_REDIRECTS; index += 1) {
    const destination = ordinaryTarget();
    redirects.push({ source: `/old/${destination.slug.split('/').pop()}-${index}`, destination: `/${destination.slug}` });
  }
  for (const wildcard of WILDCARDS) redirects.push({ source: wildcard.source, destination: wildcard.destination });

  const inbound = new Map<Page, number>();
  const linkFrom = (from: Page, to: Page, card: boolean): PageLinkPlan => {
    inbound.set(to, (inbound.get(to) ?? 0) + 1);
    const roll = random();
    let written: string;
    if (card || roll >= REDIRECT_LINK_SHARE + RELATIVE_LINK_SHARE || to.slug === 'index' || from.slug === 'index' || from.slug.endsWith('/index')) {
      written = `/${to.slug}`;
    } else if (roll < REDIRECT_LINK_SHARE) {
      written = throughRedirect(to, redirects, random);
    } else {
      const relative = posix.relative(posix.dirname(from.slug), to.slug);
      written = relative.startsWith('.') || random() < 0.5 ? relative : `./${relative}`;
    }
    if (random() < 0.1) written += '#overview';
    return { written, card };
  };

  let linkCount = 0;
  for (const page of pages) {
    for (let index = 0; index < LINKS_PER_PAGE; index += 1) {
      let target = ordinaryTarget();
      while (target === page) target = ordinaryTarget();
      page.links.push(linkFrom(page, target, index < CARD_LINKS));
    }
    linkCount += page.links.length;
  }
  const hubResults: GeneratedDocsSite['hubs'] = [];
  for (const hub of hubs) {
    const linking = shuffle(
      pages.filter((page) => page !== hub && !hubSet.has(page)),
      random,
    ).slice(0, HUB_INBOUND);
    for (const page of linking) page.links.push(linkFrom(page, hub, false));
    linkCount += linking.length;
    hubResults.push({ page: `${hub.slug}.mdx`, inbound: linking.length });
  }
  let plantedBroken = 0;
  for (const page of broken) {
    page.links.push({ written: `/${page.section}/removed-page-${plantedBroken}`, card: false });
    plantedBroken += 1;
    linkCount += 1;
  }
  const edits: PlannedEdit[] = edited.map((page, index) => {
    const target = ordinaryTarget();
    const before = `[the ${target.title.toLowerCase()} guide](/${target.slug})`;
    page.markers.push(before);
    linkCount += 1;
    inbound.set(target, (inbound.get(target) ?? 0) + 1);
    return { page: `${page.slug}.mdx`, before, after: `[the ${target.title.toLowerCase()} guide](/${target.slug}-renamed-${index})` };
  });
  const sectionIndex = pages.find((page) => page.slug === 'guides/index') ?? pages.find((page) => page.slug.endsWith('/index'))!;

  let pageBytes = 0;
  for (const page of pages) {
    const text = pageText({
      title: page.title,
      links: shuffle(page.links, random),
      markers: page.markers,
      imageCount: 1 + randomInt(2),
      targetBytes: 3000 + randomInt(3000),
      random,
    });
    for (const marker of page.markers) if (text.indexOf(marker) !== text.lastIndexOf(marker)) throw new Error(`edit marker occurs twice in ${page.slug}`);
    pageBytes += Buffer.byteLength(text);
    writeFile(directory, `${page.slug}.mdx`, text);
  }
  const draftCount = Math.max(3, Math.round(pages.length * BROKEN_SHARE));
  for (let index = 0; index < draftCount; index += 1) {
    const links = [
      { written: `/drafts/missing-${index}`, card: false },
      { written: '../nowhere', card: false },
    ];
    writeFile(directory, `drafts/draft-${index}.mdx`, pageText({ title: `Draft ${index}`, links, markers: [], imageCount: 0, targetBytes: 3000, random }));
  }
  for (let index = 0; index < IMAGE_FILES; index += 1) writeFile(directory, `images/diagram-${index}.png`, PNG);
  writeFile(directory, '.mintignore', '# Work in progress, not published\ndrafts/\n*.draft.mdx\n');
  writeConfiguration(directory, pages, redirects);
  return {
    directory,
    commit: '',
    pageCount: pages.length,
    pageFiles: pages.map((page) => `${page.slug}.mdx`).sort(),
    draftCount,
    plantedBroken,
    linkCount,
    pageBytes,
    edits,
    hubs: hubResults,
    indexPage: { page: `${sectionIndex.slug}.mdx`, inbound: inbound.get(sectionIndex) ?? 0 },
  };
}

/** Pages in section/group folders, a home page and one overview page per section. */
function layOut(pageCount: number, random: () => number): Page[] {
  const pages: Page[] = [{ slug: 'index', section: '', title: 'Welcome', links: [], markers: [] }];
  const used = new Set<string>();
  let remaining = pageCount - 1;
  SECTIONS.forEach((section, sectionIndex) => {
    const count = sectionIndex === SECTIONS.length - 1 ? remaining : Math.min(remaining, Math.round((pageCount - 1) * section.share));
    remaining -= count;
    for (let index = 0; index < count; index += 1) {
      if (index === 0) {
        pages.push({ slug: `${section.folder}/index`, section: section.folder, title: `${section.tab} overview`, links: [], markers: [] });
        continue;
      }
      const groupIndex = Math.floor((index - 1) / GROUP_SIZE);
      const round = Math.floor(groupIndex / GROUP_NAMES.length);
      const group = `${GROUP_NAMES[groupIndex % GROUP_NAMES.length]}${round === 0 ? '' : `-${round + 1}`}`;
      let name: string;
      do name = sentence(random, 2).slice(0, -1).toLowerCase().replace(/ /g, '-');
      while (used.has(`${section.folder}/${group}/${name}`));
      used.add(`${section.folder}/${group}/${name}`);
      const title = sentence(random, 3).slice(0, -1);
      pages.push({ slug: `${section.folder}/${group}/${name}`, section: section.folder, title, links: [], markers: [] });
    }
  });
  return pages;
}

/** A link to `to` written through one of the redirects (an exact one when it leads there, else a wildcard). */
function throughRedirect(to: Page, redirects: ReadonlyArray<{ source: string; destination: string }>, random: () => number): string {
  const exact = redirects.find((redirect) => !redirect.source.includes(':') && redirect.destination === `/${to.slug}`);
  if (exact !== undefined) return exact.source;
  const wildcards = WILDCARDS.filter((wildcard) => wildcard.section === undefined || wildcard.section === to.section);
  const wildcard = wildcards[Math.floor(random() * wildcards.length)]!;
  const rest = wildcard.section === undefined ? to.slug : to.slug.slice(wildcard.section.length + 1);
  return `${wildcard.source.replace(':slug*', '')}${rest}`;
}

function writeConfiguration(directory: string, pages: readonly Page[], redirects: ReadonlyArray<{ source: string; destination: string }>): void {
  const groupsOf = (section: string): Array<{ group: string; pages: string[] }> => {
    const groups = new Map<string, string[]>();
    for (const page of pages) {
      if (page.section !== section) continue;
      const parts = page.slug.split('/');
      const group = parts.length === 2 ? 'Overview' : parts[1]!;
      groups.set(group, [...(groups.get(group) ?? []), page.slug]);
    }
    return [...groups].map(([group, members]) => ({ group: group.charAt(0).toUpperCase() + group.slice(1).replace(/-/g, ' '), pages: members }));
  };
  const tabs: object[] = [];
  for (const [index, section] of SECTIONS.entries()) {
    const groups = groupsOf(section.folder);
    if (index === 0) groups.unshift({ group: 'Home', pages: ['index'] });
    if (section.ref === undefined) {
      tabs.push({ tab: section.tab, groups });
      continue;
    }
    // https://www.mintlify.com/docs/organize/settings: `$ref` pulls a JSON file in at any place of docs.json.
    writeFile(directory, section.ref, `${JSON.stringify(groups, null, 2)}\n`);
    tabs.push({ tab: section.tab, groups: { $ref: `./${section.ref}` } });
  }
  const config = {
    $schema: 'https://mintlify.com/docs.json',
    theme: 'mint',
    name: 'Benchmark Docs',
    colors: { primary: '#0D9373' },
    navigation: { tabs },
    redirects,
  };
  writeFile(directory, 'docs.json', `${JSON.stringify(config, null, 2)}\n`);
}

function writeFile(directory: string, relative: string, content: string | Buffer): void {
  const file = join(directory, relative);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, content);
}

function shuffle<T>(items: T[], random: () => number): T[] {
  const result = [...items];
  for (let index = result.length - 1; index > 0; index -= 1) {
    const other = Math.floor(random() * (index + 1));
    [result[index], result[other]] = [result[other]!, result[index]!];
  }
  return result;
}
