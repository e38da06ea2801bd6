import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createSeededRandom } from '../lib/seeded-random.js';

export interface GeneratedDocsRepository {
  /** A non-bare git repository on branch `main`, the kind of remote the local forge uses. */
  directory: string;
  pageCount: number;
  /** The page the benchmark's agent edits, and a line of it that occurs exactly once. */
  editedPage: string;
  editedLine: string;
  /** What the edit puts in place of `editedLine`. */
  replacementLine: string;
}

const SECTIONS = ['get-started', 'guides', 'concepts', 'api-reference', 'integrations', 'deployment', 'security', 'troubleshooting'];
const SUBGROUPS = ['basics', 'configuration', 'advanced', 'recipes', 'reference'];
const WORDS = (
  'project docs page deploy build preview branch token webhook request response schema field value client server ' +
  'cache region user team role access key limit retry timeout version release search index theme layout navigation ' +
  'component snippet example option default setting environment variable command output error event queue worker'
).split(' ');

/** A fixed identity and dates: the same seed must give the same commit id on every run. */
export const GIT_ENVIRONMENT = {
  PATH: process.env.PATH ?? '',
  HOME: process.env.HOME ?? '/tmp',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'Docs Team',
  GIT_AUTHOR_EMAIL: 'docs@example.com',
  GIT_AUTHOR_DATE: '2026-01-01T00:00:00Z',
  GIT_COMMITTER_NAME: 'Docs Team',
  GIT_COMMITTER_EMAIL: 'docs@example.com',
  GIT_COMMITTER_DATE: '2026-01-01T00:00:00Z',
};

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: GIT_ENVIRONMENT, encoding: 'utf8' }).trim();
}

/** Page paths without extension, as docs.json names them: `section/subgroup/page-0001`. */
function pagePaths(pageCount: number): string[] {
  const groups = SECTIONS.flatMap((section) => SUBGROUPS.map((subgroup) => `${section}/${subgroup}`));
  return Array.from({ length: pageCount }, (_, index) => `${groups[index % groups.length]}/page-${String(index).padStart(4, '0')}`);
}

function sentence(random: () => number, words: number): string {
  const picked = Array.from({ length: words }, () => WORDS[Math.floor(random() * WORDS.length)] ?? 'docs');
  const text = picked.join(' ');
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

/**
 * One Mintlify page of about 2 KB: frontmatter, headings, prose with internal links that
 * resolve, a list, a code block and a callout component — what check_docs sees in real docs.
 */
function pageText(page: string, index: number, all: readonly string[], random: () => number): string {
  const title = `${sentence(random, 3).slice(0, -1)} ${index}`;
  const link = (): string => {
    const target = all[Math.floor(random() * all.length)] ?? page;
    return `[${sentence(random, 2).slice(0, -1).toLowerCase()}](/${target})`;
  };
  const paragraph = (): string => `${sentence(random, 12)} ${sentence(random, 9)} See ${link()} and ${link()}. ${sentence(random, 14)}`;
  return [
    '---',
    `title: "${title}"`,
    `description: "${sentence(random, 10)}"`,
    '---',
    '',
    `Page ${index} explains ${sentence(random, 4).toLowerCase()}`,
    '',
    paragraph(),
    '',
    '## Overview',
    '',
    paragraph(),
    '',
    `- ${sentence(random, 6)}`,
    `- ${sentence(random, 7)} ${link()}`,
    `- ${sentence(random, 5)}`,
    '',
    '## Example',
    '',
    '```bash',
    `docs-cli ${WORDS[index % WORDS.length]} --project example --retries ${index % 5}`,
    '```',
    '',
    '<Note>',
    `  ${sentence(random, 11)}`,
    '</Note>',
    '',
    '## Details',
    '',
    paragraph(),
    '',
    paragraph(),
    '',
  ].join('\n');
}

function docsJson(pages: readonly string[]): string {
  const groups = new Map<string, string[]>();
  for (const page of pages) {
    const group = page.slice(0, page.lastIndexOf('/'));
    groups.set(group, [...(groups.get(group) ?? []), page]);
  }
  const navigation = { groups: [...groups].map(([group, members]) => ({ group, pages: members })) };
  return `${JSON.stringify({ $schema: 'https://mintlify.com/docs.json', theme: 'mint', name: 'Benchmark Docs', colors: { primary: '#0D9373' }, navigation }, null, 2)}\n`;
}

/**
 * Writes a docs repository of `pageCount` .mdx pages (in section/subgroup folders) plus a
 * docs.json listing them all, and commits it on `main`. Deterministic for a given seed;
 * any earlier contents of `directory` are removed, so branches of past runs never pile up.
 */
export function generateDocsRepository(directory: string, pageCount: number, seed = 2_000): GeneratedDocsRepository {
  rmSync(directory, { recursive: true, force: true });
  mkdirSync(directory, { recursive: true });
  const random = createSeededRandom(seed);
  const pages = pagePaths(pageCount);
  pages.forEach((page, index) => {
    const file = join(directory, `${page}.mdx`);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, pageText(page, index, pages, random));
  });
  writeFileSync(join(directory, 'docs.json'), docsJson(pages));
  git(directory, 'init', '-q', '-b', 'main');
  git(directory, 'add', '--all');
  git(directory, 'commit', '-q', '-m', `Docs: ${pageCount} pages`);
  // A repository that came from anywhere real is packed; 2,000 loose objects would make
  // every local clone hard-link 2,000 files and measure the file system instead.
  git(directory, 'repack', '-a', '-d', '-q');
  const editedIndex = Math.floor(pageCount / 2);
  return {
    directory,
    pageCount,
    editedPage: `${pages[editedIndex]}.mdx`,
    editedLine: `Page ${editedIndex} explains`,
    replacementLine: `Page ${editedIndex} now explains`,
  };
}
