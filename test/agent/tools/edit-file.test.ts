import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { readFile as readRaw } from 'node:fs/promises';
import path from 'node:path';
import { createToolContext, editFile, readFile, type ToolContext } from '../../../src/agent/tools/index.js';
import { planEdit } from '../../../src/agent/tools/edit-plan.js';
import { findOccurrences } from '../../../src/agent/tools/find-occurrences.js';
import { createTemporaryWorkspace, type TemporaryWorkspace } from './temporary-workspace.js';
import { failure } from './tool-failure-message.js';

let fixture: TemporaryWorkspace;
let contexts: ToolContext[];

beforeEach(async () => {
  fixture = await createTemporaryWorkspace();
  contexts = [];
});

afterEach(async () => {
  await Promise.all(contexts.map((context) => context.workers.close()));
  await fixture.remove();
});

const PATHS = ['main thread', 'tool worker'] as const;

/** The default context, or one that sends every file to the tool worker (as files above 256 KB are). */
function contextFor(where: (typeof PATHS)[number]): ToolContext {
  const context = createToolContext({ workspace: fixture.workspace, limits: where === 'tool worker' ? { maxReadBytes: 1 } : {} });
  contexts.push(context);
  return context;
}

const PAGE =
  '---\ntitle: Install\n---\n\n<Steps>\n  <Step title="Install">\n    Run `npm install acme`.\n  </Step>\n</Steps>\n\nUse npm to update: `npm update acme`.\n';
const inWorkspace = (relative: string): Promise<string> => readRaw(path.join(fixture.workspace, relative), 'utf8');

describe('edit_file', () => {
  test.each(PATHS)('replaceAll replaces every occurrence and says how many (%s)', async (where) => {
    const context = contextFor(where);
    await fixture.put('page.mdx', PAGE);
    expect(await editFile(context, { path: 'page.mdx', oldString: 'npm', newString: 'pnpm', replaceAll: true })).toEqual({
      path: 'page.mdx',
      line: 7,
      replacements: 3,
    });
    expect(await inWorkspace('page.mdx')).toBe(PAGE.replaceAll('npm', 'pnpm'));
    // Without replaceAll the same call names the lines and leaves the file alone.
    expect(await failure(editFile(context, { path: 'page.mdx', oldString: 'acme', newString: 'Acme' }))).toBe(
      'oldString occurs 2 times in page.mdx (at lines 7, 11); include more surrounding context so that it matches exactly once, or set replaceAll to replace every occurrence.',
    );
    expect(await inWorkspace('page.mdx')).toBe(PAGE.replaceAll('npm', 'pnpm'));
  });

  test.each(PATHS)('text copied from read_file without its line numbers matches (%s)', async (where) => {
    const context = contextFor(where);
    await fixture.put('page.mdx', PAGE);
    const read = await readFile(context, { path: 'page.mdx', startLine: 6, endLine: 8 });
    const copied = read.content
      .split('\n')
      .map((line) => line.replace(/^ *\d+\t/, ''))
      .join('\n');
    expect(await editFile(context, { path: 'page.mdx', oldString: copied, newString: '  <Step title="Add">\n    Run `pnpm add acme`.\n  </Step>' })).toEqual({
      path: 'page.mdx',
      line: 6,
    });
    // Copied with the numbers, it is refused with the reason and where it would match.
    const withNumbers = (await readFile(context, { path: 'page.mdx', startLine: 6, endLine: 7 })).content;
    expect(await failure(editFile(context, { path: 'page.mdx', oldString: withNumbers, newString: 'x' }))).toMatch(
      /starts its lines with read_file's line numbers .* Without them it matches at line 6: leave the numbers and the tab after them out of oldString\.$/,
    );
  });

  test.each(PATHS)('a miss by whitespace names the lines and quotes the text to copy (%s)', async (where) => {
    const context = contextFor(where);
    await fixture.put('page.mdx', PAGE);
    const message = await failure(editFile(context, { path: 'page.mdx', oldString: '<Step title="Install">\nRun `npm install acme`.', newString: 'x' }));
    expect(message).toBe(
      'oldString was not found in page.mdx. It must match the file exactly, including whitespace, indentation and line breaks. ' +
        'Text that differs from oldString only in whitespace (spaces, indentation or line breaks) is at lines 6–7; copy it exactly:\n' +
        '     6\t  <Step title="Install">\n     7\t    Run `npm install acme`.',
    );
  });

  test.each(PATHS)('any other miss names the most similar text with its lines (%s)', async (where) => {
    const context = contextFor(where);
    await fixture.put('page.mdx', PAGE);
    const message = await failure(editFile(context, { path: 'page.mdx', oldString: 'Use npm to upgrade: `npm upgrade acme`.', newString: 'x' }));
    expect(message).toMatch(
      /^oldString was not found in page\.mdx\. .* The most similar text in the file is at line 11 \(\d+% of oldString's character pairs\)/,
    );
    expect(message).toMatch(/:\n {4}11\tUse npm to update: `npm update acme`\.$/);
    // Nothing alike: no guess, only the advice to read again.
    expect(await failure(editFile(context, { path: 'page.mdx', oldString: 'qqqq zzzz xxxx', newString: 'x' }))).toMatch(
      /Read the file again and copy the text\.$/,
    );
  });
});

describe('the closest-match hint has bounded cost', () => {
  // Flat strings, as read from a file and parsed from the model's JSON (a concatenation would be slower to walk).
  const flat = (text: string): string => Buffer.from(text).toString();

  test('an 8 MB file and a 100 KB needle: linear, well under the large-file time limit', () => {
    const text = flat('lorem ipsum dolor sit amet '.repeat(8 * 1024 * 37).slice(0, 8 * 1024 * 1024));
    const needle = flat(`${'lorem ipsum dolor sit amet '.repeat(4000)}NOT THERE`);
    const searchStarted = performance.now();
    expect(findOccurrences(text, needle).count).toBe(0);
    const search = performance.now() - searchStarted;
    const started = performance.now();
    expect(() => planEdit(text, 'big.md', needle, 'x', 16 * 1024 * 1024)).toThrow(/most similar text in the file is at line 1/);
    // About six linear passes over the file: 0.6 s against 0.1 s for the search alone on a
    // quiet machine (in a tool worker, for a file this size). Quadratic work would take hours.
    expect(performance.now() - started).toBeLessThan(20 * search + 500);
  });

  test('a miss in a page above 32 KB is explained by the tool worker, not on the main thread', async () => {
    const context = contextFor('main thread');
    const lines = Array.from({ length: 2000 }, (_, index) => `Paragraph ${index} of the guide.`);
    await fixture.put('guide.mdx', `${lines.join('\n')}\n`);
    const before = context.workers.stats().started;
    expect(await failure(editFile(context, { path: 'guide.mdx', oldString: 'Paragraph 1234 of the  guide.', newString: 'x' }))).toMatch(
      /only in whitespace .* is at line 1235; copy it exactly:\n {2}1235\tParagraph 1234 of the guide\.$/,
    );
    expect(context.workers.stats().started).toBe(before + 1);
  });
});
