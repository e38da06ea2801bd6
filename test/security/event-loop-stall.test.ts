import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { readFile as readRaw } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ToolSet } from 'ai';
import { createDocsToolset, DEFAULT_TOOL_LIMITS, type DocsToolset, type ToolLimits } from '../../src/agent/tools/index.js';
import { startListeningTestApp, type ListeningTestApp } from '../helpers/listening-test-app.js';
import { measureResponsiveness } from '../helpers/event-loop-probe.js';
import { createTemporaryWorkspace, type TemporaryWorkspace } from '../agent/tools/temporary-workspace.js';

/*
 * Issue 9, "no single input can stall the process": each tool runs here, in the process
 * serving HTTP, on a hostile argument or file, while /healthz is polled every ~10 ms. No
 * gap between two answers may reach 100 ms. On the code before the fix the MDX page below
 * held the event loop for over a minute, the YAML aliases, the docs.json and the 8 MB
 * read and edit for seconds.
 */

const MAX_GAP_MS = 100;
/**
 * A loaded 2-core machine alone leaves gaps of 20–60 ms now and then (other processes get
 * the CPU), and at a load average of 8 three attempts in a row measured 157, 166 and 412 ms
 * on check_docs' nested page (Node 22); at a load of 18, five attempts of the docs.json case
 * measured 212–429 ms. So each attempt first measures a control window of the same polling
 * with no tool running, and the limit is the larger of 100 ms and CONTROL_FACTOR times the
 * control's largest gap, never above LIMIT_CEILING_MS: a quiet machine keeps the 100 ms limit,
 * a loaded one is judged against its own scheduling noise, and a real stall still fails
 * (the ones this test was written against held the event loop for seconds).
 */
const CONTROL_FACTOR = 3;
const CONTROL_WINDOW_MS = 1_000;
const LIMIT_CEILING_MS = 800;
/**
 * A measurement above the limit is repeated, up to this many times in all, and the best one
 * counts: a stall in the code repeats on every attempt, scheduling noise does not. Passing
 * attempts stop the loop, so a quiet machine runs each case once.
 */
const ATTEMPTS = 5;
// A short per-page limit keeps the hostile pages' checks short; they need far longer.
const LIMITS: Partial<ToolLimits> = { pageCheckTimeoutMs: 3000, largeFileTimeoutMs: 5000 };

let server: ListeningTestApp;
let fixture: TemporaryWorkspace | undefined;
let toolset: DocsToolset | undefined;

beforeAll(async () => {
  server = await startListeningTestApp('sqlite');
});

afterAll(async () => {
  await server.close();
});

afterEach(async () => {
  await cleanUp();
});

async function cleanUp(): Promise<void> {
  await toolset?.close();
  await fixture?.remove();
  toolset = undefined;
  fixture = undefined;
}

type Call = (name: string, input: object) => Promise<unknown>;

/**
 * Creates a workspace holding `files`, then runs `use` with its tools while /healthz is
 * polled, and asserts the server never went longer than the limit above without
 * answering. Returns what `use` returned.
 */
async function withoutStall<T>(files: Record<string, string | Buffer>, use: (call: Call, root: string) => Promise<T>): Promise<T> {
  const seen: string[] = [];
  for (let attempt = 1; ; attempt += 1) {
    await cleanUp();
    fixture = await createTemporaryWorkspace();
    for (const [name, content] of Object.entries(files)) await fixture.put(name, content);
    const { tools } = (toolset = createDocsToolset({ workspace: fixture.workspace, limits: LIMITS }));
    const root = fixture.workspace;
    const control = await measureResponsiveness(server.url, () => sleep(CONTROL_WINDOW_MS));
    const limit = Math.min(LIMIT_CEILING_MS, Math.max(MAX_GAP_MS, CONTROL_FACTOR * control.maxGapMs));
    const measured = await measureResponsiveness(server.url, () => use((name, input) => call(tools, name, input), root));
    seen.push(
      `gap ${measured.maxGapMs.toFixed(0)} ms against a limit of ${limit.toFixed(0)} ms (${measured.answers} answers in ${measured.durationMs.toFixed(0)} ms)`,
    );
    expect(measured.answers, seen.join('; ')).toBeGreaterThan(0);
    if (measured.maxGapMs < limit || attempt === ATTEMPTS) {
      expect(measured.maxGapMs, `largest gap between /healthz answers, attempts: ${seen.join('; ')}`).toBeLessThan(limit);
      return measured.result;
    }
  }
}

function call(tools: ToolSet, name: string, input: object): Promise<unknown> {
  const selected = tools[name];
  if (selected?.execute === undefined) throw new Error(`no executable tool ${name}`);
  return Promise.resolve(selected.execute(input as never, { toolCallId: `call-${name}`, messages: [] })) as Promise<unknown>;
}

interface CheckReport {
  newProblems: Array<{ path: string; kind: string; message: string }>;
}

const kindsOf = (report: unknown, page: string): string[] =>
  (report as CheckReport).newProblems.filter((problem) => problem.path === page).map((problem) => problem.kind);
const problemOf = (report: unknown, page: string) => (report as CheckReport).newProblems.find((problem) => problem.path === page);

// Up to five attempts, each with its control window, on a loaded machine.
describe('no tool call stalls the process', { timeout: 180_000 }, () => {
  test('check_docs: 100 KB of ">" (76 s in the MDX compiler) is stopped at the page time limit, and the other pages are checked', async () => {
    const files = { 'quotes.mdx': '>'.repeat(100 * 1024), 'fine.mdx': '# Fine\n\n[missing](/nowhere)\n' };
    const report = await withoutStall(files, (call) => call('check_docs', {}));
    expect(kindsOf(report, 'quotes.mdx')).toEqual(['check-limit']);
    expect(problemOf(report, 'quotes.mdx')?.message).toMatch(/took longer than 3000 ms/);
    expect(kindsOf(report, 'fine.mdx')).toEqual(['broken-link']);
  });

  test('check_docs: deeply nested elements, expressions and lists, and a page above the size limit', async () => {
    const files = {
      'elements.mdx': `${'<div>'.repeat(20_000)}x${'</div>'.repeat(20_000)}\n`,
      'braces.mdx': `${'{'.repeat(50_000)}${'}'.repeat(50_000)}\n`,
      'lists.mdx': Array.from({ length: 300 }, (_, depth) => `${'  '.repeat(depth)}- item`).join('\n'),
      'huge.mdx': `# Huge\n\n${'word '.repeat(DEFAULT_TOOL_LIMITS.maxCheckedPageBytes / 5)}\n`,
      'fine.mdx': '# Fine\n',
    };
    const report = await withoutStall(files, (call) => call('check_docs', {}));
    expect(kindsOf(report, 'elements.mdx')).toEqual(['check-limit']);
    expect(kindsOf(report, 'braces.mdx')).toHaveLength(1);
    expect(kindsOf(report, 'huge.mdx')).toEqual(['check-limit']);
    expect(problemOf(report, 'huge.mdx')?.message).toMatch(/not checked/);
    expect(kindsOf(report, 'fine.mdx')).toEqual([]);
    expect((report as { pagesChecked: number }).pagesChecked).toBe(5);
  });

  test('check_docs: YAML frontmatter with an alias bomb and with thousands of aliases', async () => {
    const bomb = ['a0: &a0 [x, x, x, x, x, x, x, x, x, x]'];
    for (let level = 1; level < 20; level += 1)
      bomb.push(
        `a${level}: &a${level} [${Array(10)
          .fill(`*a${level - 1}`)
          .join(', ')}]`,
      );
    // Each alias is resolved by a walk of the document: 20,000 of them (360 KB) take the yaml package seconds.
    const aliases = ['anchor: &anchor value', ...Array.from({ length: 20_000 }, (_, index) => `key${index}: *anchor`)];
    const files = {
      'bomb.mdx': `---\n${bomb.join('\n')}\n---\n\n# Bomb\n`,
      'aliases.mdx': `---\n${aliases.join('\n')}\n---\n\n# Aliases\n`,
    };
    const report = await withoutStall(files, (call) => call('check_docs', {}));
    expect(problemOf(report, 'bomb.mdx')).toMatchObject({ kind: 'frontmatter', message: expect.stringMatching(/alias/i) });
    // Reported either way, never a stall: stopped at the page time limit, or refused by the
    // alias cap when the worker gets there first (it depends on the machine's speed).
    const reported = problemOf(report, 'aliases.mdx');
    expect([
      { kind: 'check-limit', took: (reported?.message ?? '').includes('took longer than') },
      { kind: 'frontmatter', took: /alias/i.test(reported?.message ?? '') },
    ]).toContainEqual({ kind: reported?.kind, took: true });
  });

  test('check_docs: a docs.json listing 20,000 missing pages one per line, and one nested 100,000 levels deep', async () => {
    const pages = Array.from({ length: 20_000 }, (_, index) => `missing/page-${index}`);
    const files = {
      'docs.json': JSON.stringify({ navigation: { groups: [{ group: 'All', pages }] } }, null, 2),
      'deep/docs.json': `{"navigation": ${'['.repeat(100_000)}${']'.repeat(100_000)}}`,
      'index.mdx': '# Home\n',
    };
    const report = (await withoutStall(files, (call) => call('check_docs', {}))) as CheckReport;
    expect(report.newProblems.filter((problem) => problem.path === 'docs.json').length).toBeGreaterThan(100);
    expect(problemOf(report, 'deep/docs.json')).toMatchObject({ kind: 'check-limit', message: expect.stringMatching(/nests more than/) });
  });

  test('search: "(a+)+$" on long lines, across the most bytes a search reads', async () => {
    const line = `${'a'.repeat(DEFAULT_TOOL_LIMITS.maxFileBytes - 2)}!\n`;
    const files: Record<string, string> = {};
    for (let index = 0; index < DEFAULT_TOOL_LIMITS.maxSearchBytes / DEFAULT_TOOL_LIMITS.maxFileBytes; index += 1) files[`long-${index}.md`] = line;
    const result = await withoutStall(files, (call) => call('search', { query: '(a+)+$', regex: true }));
    expect(result).toMatchObject({ ok: false, error: expect.stringMatching(/longer than/) });
  });

  test('read_file: a line range at the end of an 8 MB file of line breaks', async () => {
    const size = DEFAULT_TOOL_LIMITS.maxFileBytes;
    const result = await withoutStall({ 'breaks.md': '\n'.repeat(size) }, (call) =>
      call('read_file', { path: 'breaks.md', startLine: size - 2, endLine: size }),
    );
    expect(result).toMatchObject({ totalLines: size, startLine: size - 2, endLine: size, content: `${size - 2}\t\n${size - 1}\t\n${size}\t` });
  });

  test('edit_file: a needle that makes indexOf quadratic, in an 8 MB file', async () => {
    const needle = `${'a'.repeat(500)}b${'a'.repeat(500)}`;
    const files = { 'letters.md': 'a'.repeat(DEFAULT_TOOL_LIMITS.maxFileBytes) };
    const result = await withoutStall(files, (call) => call('edit_file', { path: 'letters.md', oldString: needle, newString: 'x' }));
    // 338 ms in a quiet CI run; at a load average of 20 the search ran into the
    // 5 s large-file limit, which is the other bounded answer.
    expect(result).toMatchObject({ ok: false, error: expect.stringMatching(/not found|took longer than 5000 ms/) });
  });

  test('edit_file: a small edit of an 8 MB file is written whole', async () => {
    const characters = DEFAULT_TOOL_LIMITS.maxFileBytes / 2 - 4;
    const files = { 'big.md': `${'é'.repeat(characters)}END\n` };
    const written = await withoutStall(files, async (call, root) => {
      expect(await call('edit_file', { path: 'big.md', oldString: 'END', newString: 'FIN' })).toEqual({ path: 'big.md', line: 1 });
      return readRaw(path.join(root, 'big.md'), 'utf8');
    });
    expect(written.endsWith('éFIN\n')).toBe(true);
    expect(written.length).toBe(characters + 4);
  });

  test('write_file, move_file and delete_file: the largest content and the longest path', async () => {
    const deep = `${Array.from({ length: 300 }, () => 'd').join('/')}/page.md`.slice(-DEFAULT_TOOL_LIMITS.maxPathLength);
    const content = '€'.repeat(Math.floor(DEFAULT_TOOL_LIMITS.maxWriteBytes / 3));
    // The write policy allows pages only, so the moved file keeps its .md extension.
    const moved = deep.replace(/page\.md$/, 'moved.md');
    const results = await withoutStall({}, async (call) => [
      await call('write_file', { path: deep, content }),
      await call('move_file', { from: deep, to: moved }),
      await call('delete_file', { path: moved }),
    ]);
    expect(results).toEqual([
      { path: deep, bytes: Buffer.byteLength(content), created: true },
      { from: deep, to: moved, linksUpdated: [], navigationUpdated: [], notUpdated: [] },
      { path: moved, deleted: true },
    ]);
  });

  // The picomatch-based matcher this replaced backtracked on this pattern for tens of
  // seconds; glob-pattern.ts matches in time proportional to pattern × name length.
  test('list_files: "*a*a*a*a*a*a*a*a*a*a*b" against a name of 40 a', async () => {
    const files = { ['a'.repeat(40)]: 'x\n', 'other.md': 'x\n' };
    const result = await withoutStall(files, (call) => call('list_files', { pattern: '*a*a*a*a*a*a*a*a*a*a*b' }));
    expect(result).toMatchObject({ files: [] });
  });
});
