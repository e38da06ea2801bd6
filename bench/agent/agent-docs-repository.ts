/**
 * The repository of the `agent` suite: the `docs` suite's seeded Mintlify site (tabs,
 * `$ref` navigation, redirects, drafts, 3–6 KB pages with 20 links each), cloned and given
 * a second commit that brings the page sizes to a real site's spread: most pages are a few
 * KB, a tail of long guides and generated references runs to tens of KB, and a handful of
 * changelog-like pages to hundreds. The agent's context is made of exactly those pages,
 * so their sizes decide what the benchmark measures.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateDocsSite } from '../docs-site-generator.js';
import { sentence } from '../docs-site-pages.js';
import { GIT_ENVIRONMENT } from '../jobs/generate-docs-repository.js';
import { createSeededRandom } from '../lib/seeded-random.js';

/**
 * Log-normal page sizes, median 5 KB, σ 0.85 (90th percentile about 15 KB, 99th about
 * 36 KB), plus one page in 200 of 80–240 KB. A model of public Mintlify repositories
 * (guides of a few KB, long API references, changelogs), not a measurement of one.
 */
const MEDIAN_PAGE_BYTES = 5_000;
const SIZE_SIGMA = 0.85;
const HUGE_PAGE_SHARE = 0.005;
const HUGE_PAGE_BYTES = { min: 80_000, max: 240_000 };
/** Bumped whenever the output changes, so a kept repository of an older version is rebuilt. */
const GENERATOR_VERSION = 1;
const MANIFEST = 'agent-docs-repository.json';

export interface AgentDocsPage {
  /** Workspace-relative, e.g. `guides/basics/retry-token.mdx`. */
  path: string;
  bytes: number;
  lines: number;
}

export interface AgentDocsRepository {
  /** A non-bare repository on `main`, the local forge's remote. */
  directory: string;
  /** Published pages, sorted by path. */
  pages: AgentDocsPage[];
  /** Bytes of docs.json. */
  configBytes: number;
  /** The page the agent edits, a line in it that occurs once in the whole site, and its replacement. */
  edit: { page: string; line: number; before: string; after: string };
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: GIT_ENVIRONMENT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }).trim();
}

/** A standard normal draw (Box–Muller), from the seeded generator. */
function normal(random: () => number): number {
  const u = Math.max(random(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

function targetBytes(random: () => number): number {
  if (random() < HUGE_PAGE_SHARE) return Math.round(HUGE_PAGE_BYTES.min + random() * (HUGE_PAGE_BYTES.max - HUGE_PAGE_BYTES.min));
  return Math.round(MEDIAN_PAGE_BYTES * Math.exp(SIZE_SIGMA * normal(random)));
}

/** Sections of prose, parameter tables and code without links: length, not link-checking work. */
function filler(random: () => number, bytes: number): string {
  const parts: string[] = [];
  let length = 0;
  let section = 0;
  while (length < bytes) {
    section += 1;
    const block: string[] = ['', `## ${sentence(random, 3).slice(0, -1)} ${section}`, ''];
    block.push(Array.from({ length: 4 + Math.floor(random() * 5) }, () => sentence(random, 8 + Math.floor(random() * 12))).join(' '), '');
    if (section % 3 === 0) {
      block.push('| Field | Type | Description |', '| --- | --- | --- |');
      for (let row = 0; row < 6; row += 1) block.push(`| \`${sentence(random, 1).slice(0, -1).toLowerCase()}_${row}\` | string | ${sentence(random, 9)} |`);
      block.push('');
    }
    if (section % 4 === 0)
      block.push('```bash', `docs-cli ${sentence(random, 2).slice(0, -1).toLowerCase().replace(' ', ' --')} --retries ${section % 5}`, '```', '');
    const text = block.join('\n');
    parts.push(text);
    length += text.length;
  }
  return parts.join('');
}

/**
 * Builds the repository in `directory` from the cached site under `siteDirectory`, or, when
 * the directory holds the same one already, resets it to its commit and drops the branches
 * earlier jobs pushed. Deterministic for a page count.
 */
export function generateAgentDocsRepository(input: { siteDirectory: string; directory: string; pageCount: number }): AgentDocsRepository {
  const manifestPath = join(input.directory, '.git', MANIFEST);
  if (existsSync(manifestPath)) {
    const kept = JSON.parse(readFileSync(manifestPath, 'utf8')) as { version: number; pageCount: number; commit: string; repository: AgentDocsRepository };
    if (kept.version === GENERATOR_VERSION && kept.pageCount === input.pageCount && kept.repository.directory === input.directory) {
      git(input.directory, 'checkout', '-q', '-f', 'main');
      git(input.directory, 'reset', '-q', '--hard', kept.commit);
      git(input.directory, 'clean', '-q', '-fdx');
      const branches = git(input.directory, 'for-each-ref', '--format=%(refname:short)', 'refs/heads/').split('\n');
      const pushed = branches.filter((branch) => branch !== '' && branch !== 'main');
      if (pushed.length > 0) git(input.directory, 'branch', '-q', '-D', ...pushed);
      return kept.repository;
    }
  }
  const repository = buildRepository(input);
  writeFileSync(
    manifestPath,
    JSON.stringify({ version: GENERATOR_VERSION, pageCount: input.pageCount, commit: git(input.directory, 'rev-parse', 'HEAD'), repository }),
  );
  return repository;
}

function buildRepository(input: { siteDirectory: string; directory: string; pageCount: number }): AgentDocsRepository {
  const site = generateDocsSite(input.siteDirectory, input.pageCount);
  rmSync(input.directory, { recursive: true, force: true });
  execFileSync('git', ['clone', '-q', '--no-hardlinks', site.directory, input.directory], { env: GIT_ENVIRONMENT });
  const random = createSeededRandom(32_000 + input.pageCount);
  for (const page of site.pageFiles) {
    const file = join(input.directory, page);
    const missing = targetBytes(random) - statSync(file).size;
    if (missing > 0) appendFileSync(file, filler(random, missing));
  }
  // The edited page: a guide of about the median size, given a line no other page has.
  const guides = site.pageFiles.filter((page) => page.startsWith('guides/') && !page.endsWith('/index.mdx'));
  const bySize = guides.map((page) => ({ page, bytes: statSync(join(input.directory, page)).size })).sort((a, b) => a.bytes - b.bytes);
  const edited = bySize[Math.floor(bySize.length / 2)]!.page;
  const before = 'A failed delivery is retried up to 3 times, one minute apart.';
  appendFileSync(join(input.directory, edited), `\n## Delivery retries\n\n${before}\n`);
  git(input.directory, 'add', '--all');
  git(input.directory, 'commit', '-q', '-m', 'Docs: long pages');
  git(input.directory, 'repack', '-a', '-d', '-q');
  const pages = site.pageFiles.map((path) => {
    const text = readFileSync(join(input.directory, path), 'utf8');
    return { path, bytes: Buffer.byteLength(text), lines: text.split('\n').length };
  });
  const editedLines = readFileSync(join(input.directory, edited), 'utf8').split('\n');
  return {
    directory: input.directory,
    pages,
    configBytes: statSync(join(input.directory, 'docs.json')).size,
    edit: {
      page: edited,
      line: editedLines.indexOf(before) + 1,
      before,
      after: 'A failed delivery is retried up to 5 times, with exponential backoff from one minute.',
    },
  };
}
