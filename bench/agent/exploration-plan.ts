/**
 * The `agent` suite's scripted run, step by step: what a docs agent does on a large site
 * before it changes one line. It lists the pages, reads the navigation, searches for the
 * topic, reads many pages whole (the long ones a search turns up) and the longest in line
 * ranges, then reads the page to change, edits it, runs check_docs and reads the edit back.
 */
import type { FakeToolCall } from '../../test/fakes/fake-model-server.js';
import { createSeededRandom } from '../lib/seeded-random.js';
import type { AgentDocsPage, AgentDocsRepository } from './agent-docs-repository.js';

/** Steps of the full run; the suite's scale shortens the exploration in the middle. */
export const FULL_STEPS = 40;
/** Listing, docs.json and a first search before, and read, edit, check, read back after. */
const FIXED_STEPS = 7;

export interface PlannedStep {
  call: FakeToolCall;
}

const SEARCHES = [
  { query: 'retried', glob: 'guides/**/*.mdx' },
  { query: 'webhook retry', glob: 'guides/**' },
  { query: 'retry budget', glob: '**/*.mdx' },
  { query: 'exponential', glob: 'api-reference/**' },
  { query: 'delivery', glob: 'guides/**' },
];

/** The order of exploration steps: mostly whole pages, a search every few, a long page in ranges. */
const PATTERN = ['read', 'read', 'range', 'read', 'search', 'read', 'read', 'read', 'range', 'read', 'read'] as const;

function read(path: string, startLine?: number, endLine?: number): PlannedStep {
  const range = startLine === undefined ? {} : { startLine, endLine };
  return { call: { name: 'read_file', arguments: { path, ...range } } };
}

/**
 * The steps for a run of `steps` model calls with tools (40 at full scale, at least 8).
 * Pages are picked by size rank, so the plan follows the repository's size spread.
 */
export function explorationPlan(repository: AgentDocsRepository, steps: number): PlannedStep[] {
  const explore = Math.max(1, steps - FIXED_STEPS);
  const bySize = [...repository.pages].filter((page) => page.path !== repository.edit.page).sort((a, b) => a.bytes - b.bytes || a.path.localeCompare(b.path));
  // Whole reads: what a search turns up, from the median to the 97th percentile; the
  // longest pages are read in ranges of 300 lines, as agents page through them.
  const wholeCandidates = shuffle(bySize.slice(Math.floor(bySize.length * 0.5), Math.floor(bySize.length * 0.97)), createSeededRandom(40));
  const longest = bySize.slice(-Math.max(1, Math.ceil(explore / PATTERN.length))).reverse();
  const plan: PlannedStep[] = [
    { call: { name: 'list_files', arguments: { pattern: 'guides/**/*.mdx' } } },
    read('docs.json'),
    { call: { name: 'search', arguments: SEARCHES[0]! } },
  ];
  let whole = 0;
  let ranged = 0;
  let searched = 1;
  const rangeReads = new Map<AgentDocsPage, number>();
  for (let index = 0; index < explore; index += 1) {
    const kind = PATTERN[index % PATTERN.length]!;
    if (kind === 'search') {
      plan.push({ call: { name: 'search', arguments: SEARCHES[searched % SEARCHES.length]! } });
      searched += 1;
    } else if (kind === 'range') {
      const page = longest[ranged % longest.length]!;
      ranged += 1;
      const done = rangeReads.get(page) ?? 0;
      rangeReads.set(page, done + 1);
      const start = 1 + done * 300;
      plan.push(read(page.path, Math.min(start, page.lines), Math.min(start + 299, page.lines)));
    } else {
      const page = wholeCandidates[whole % wholeCandidates.length]!;
      whole += 1;
      plan.push(read(page.path));
    }
  }
  const { edit } = repository;
  plan.push(
    read(edit.page),
    { call: { name: 'edit_file', arguments: { path: edit.page, oldString: edit.before, newString: edit.after } } },
    { call: { name: 'check_docs', arguments: {} } },
    read(edit.page, Math.max(1, edit.line - 5), edit.line + 5),
  );
  return plan;
}

function shuffle<T>(items: readonly T[], random: () => number): T[] {
  const result = [...items];
  for (let index = result.length - 1; index > 0; index -= 1) {
    const other = Math.floor(random() * (index + 1));
    [result[index], result[other]] = [result[other]!, result[index]!];
  }
  return result;
}
