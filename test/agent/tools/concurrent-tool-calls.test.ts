import { afterEach, beforeEach, expect, test } from 'vitest';
import { readFile as readRaw } from 'node:fs/promises';
import path from 'node:path';
import { resolveBudgets } from '../../../src/agent/budgets.js';
import { resolveLanguageModel } from '../../../src/agent/model-provider.js';
import { runAgent } from '../../../src/agent/run-agent.js';
import { createDocsToolset, type DocsToolset } from '../../../src/agent/tools/index.js';
import { scriptedToolCalls, startFakeModelServer, type FakeModelServer, type FakeToolCall } from '../../fakes/fake-model-server.js';
import { createTemporaryWorkspace, type TemporaryWorkspace } from './temporary-workspace.js';

/*
 * The AI SDK runs one step's tool calls side by side. These runs go through generateText
 * and the fake provider on the wire, as a job's do: the calls of a step must apply in the
 * order the model issued them, each on the result of the one before.
 */

let fixture: TemporaryWorkspace;
let server: FakeModelServer | undefined;
let toolset: DocsToolset | undefined;

beforeEach(async () => {
  fixture = await createTemporaryWorkspace();
});

afterEach(async () => {
  await server?.close();
  await toolset?.close();
  server = undefined;
  toolset = undefined;
  await fixture.remove();
});

async function runSteps(steps: Array<FakeToolCall | FakeToolCall[]>): Promise<{ results: unknown[][] }> {
  server = await startFakeModelServer({ script: scriptedToolCalls(steps, 'Done.') });
  toolset = createDocsToolset({ workspace: fixture.workspace });
  const result = await runAgent({
    model: resolveLanguageModel('openai-compatible:fake', { openaiCompatibleBaseUrl: server.url, openaiCompatibleApiKey: 'sk-test' }),
    tools: toolset.tools,
    system: 'You edit documentation.',
    messages: [{ role: 'user', content: 'Edit the page.' }],
    budgets: resolveBudgets({ maxSteps: steps.length + 2 }),
    maxRetries: 0,
  });
  expect(result.finalMessage).toBe('Done.');
  // What the model was sent back after each step, one JSON text per call, in call order.
  const results = server.requests
    .slice(1)
    .map((request) => request.toolResults.slice(-countCalls(steps[request.toolRounds - 1]!)).map((text) => JSON.parse(text) as unknown));
  return { results };
}

const countCalls = (step: FakeToolCall | FakeToolCall[]): number => (Array.isArray(step) ? step.length : 1);
const page = (): Promise<string> => readRaw(path.join(fixture.workspace, 'page.mdx'), 'utf8');

test('three edits of one file in one step all land, in the order issued, each on the one before', async () => {
  await fixture.put('page.mdx', '# Title\n\nStep one.\n');
  const { results } = await runSteps([
    [
      { name: 'edit_file', arguments: { path: 'page.mdx', oldString: 'Step one.', newString: 'Step one.\n\nStep two.' } },
      { name: 'edit_file', arguments: { path: 'page.mdx', oldString: 'Step two.', newString: 'Step two.\n\nStep three.' } },
      { name: 'edit_file', arguments: { path: 'page.mdx', oldString: '# Title', newString: '# Steps' } },
    ],
  ]);
  expect(await page()).toBe('# Steps\n\nStep one.\n\nStep two.\n\nStep three.\n');
  expect(results[0]).toEqual([
    { path: 'page.mdx', line: 3 },
    { path: 'page.mdx', line: 5 },
    { path: 'page.mdx', line: 1 },
  ]);
});

test('a read issued after a write in the same step sees it; one issued before does not; check_docs sees every earlier write', async () => {
  await fixture.put('page.mdx', '# Title\n\nOld text.\n');
  const { results } = await runSteps([
    [
      { name: 'read_file', arguments: { path: 'page.mdx' } },
      { name: 'write_file', arguments: { path: 'page.mdx', content: '# Title\n\nNew text.\n' } },
      { name: 'read_file', arguments: { path: 'page.mdx', startLine: 3 } },
      { name: 'write_file', arguments: { path: 'broken.mdx', content: 'Broken {\n' } },
      { name: 'search', arguments: { query: 'text.' } },
      { name: 'check_docs', arguments: {} },
      { name: 'delete_file', arguments: { path: 'broken.mdx' } },
    ],
  ]);
  const [before, , after, , searched, checked] = results[0] as Array<Record<string, unknown>>;
  expect(before?.content).toBe('     1\t# Title\n     2\t\n     3\tOld text.');
  expect(after?.content).toBe('     3\tNew text.');
  expect(searched?.matches).toEqual([{ path: 'page.mdx', line: 3, text: 'New text.' }]);
  expect(checked?.newProblems).toEqual([expect.objectContaining({ path: 'broken.mdx', kind: 'mdx-syntax' })]);
  expect(toolset?.changedFiles()).toEqual(['broken.mdx', 'page.mdx']);
});

test('30 parallel calls of every kind: each applies on the result of the calls issued before it, failures stay with their call', async () => {
  await fixture.put('page.mdx', '# Page\n\n');
  const calls: FakeToolCall[] = [];
  for (let index = 1; index <= 10; index += 1) {
    calls.push({ name: 'edit_file', arguments: { path: 'page.mdx', oldString: '\n\n', newString: `\n\nLine ${index}.\n` } });
    calls.push(index % 2 === 0 ? { name: 'read_file', arguments: { path: 'page.mdx' } } : { name: 'search', arguments: { query: `Line ${index}.` } });
    // notes-0.md is never written: that move fails, and only it.
    const moved = index === 9 ? 0 : index - 1;
    calls.push(
      index % 3 === 0
        ? { name: 'move_file', arguments: { from: `notes-${moved}.md`, to: `moved-${index}.md` } }
        : { name: 'write_file', arguments: { path: `notes-${index}.md`, content: `Note ${index}\n` } },
    );
  }
  const { results } = await runSteps([calls]);
  const answers = results[0] as Array<Record<string, unknown>>;
  expect(answers).toHaveLength(30);
  // Each edit found the "\n\n" the one before it left, so the lines pile up newest first;
  // with the edits side by side, each read the original page and only the last one stayed.
  expect(answers.filter((_, index) => index % 3 === 0)).toEqual(Array.from({ length: 10 }, () => ({ path: 'page.mdx', line: 1 })));
  const lines = Array.from({ length: 10 }, (_, index) => `Line ${10 - index}.\n`).join('');
  expect(await page()).toBe(`# Page\n\n${lines}`);
  // Each read saw exactly the edits issued before it.
  for (let index = 2; index <= 10; index += 2) {
    const read = answers[(index - 1) * 3 + 1]!;
    expect(read.totalLines).toBe(index + 2);
    expect(read.content).toContain(`     3\tLine ${index}.`);
    expect(read.content).not.toContain(`Line ${index + 1}.`);
  }
  for (let index = 1; index <= 9; index += 2) {
    expect(answers[(index - 1) * 3 + 1]).toMatchObject({ matches: [{ path: 'page.mdx', line: 3, text: `Line ${index}.` }] });
  }
  expect([3, 6, 9].map((index) => answers[(index - 1) * 3 + 2])).toEqual([
    expect.objectContaining({ from: 'notes-2.md', to: 'moved-3.md' }),
    expect.objectContaining({ from: 'notes-5.md', to: 'moved-6.md' }),
    { ok: false, error: 'notes-0.md does not exist.' },
  ]);
  expect(toolset?.changedFiles()).toEqual([
    'moved-3.md',
    'moved-6.md',
    'notes-1.md',
    'notes-10.md',
    'notes-2.md',
    'notes-4.md',
    'notes-5.md',
    'notes-7.md',
    'notes-8.md',
    'page.mdx',
  ]);
});
