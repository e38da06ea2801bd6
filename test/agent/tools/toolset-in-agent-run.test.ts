import { afterEach, beforeEach, expect, test } from 'vitest';
import { readFile as readRaw } from 'node:fs/promises';
import path from 'node:path';
import { resolveBudgets } from '../../../src/agent/budgets.js';
import { resolveLanguageModel } from '../../../src/agent/model-provider.js';
import { runAgent } from '../../../src/agent/run-agent.js';
import { createDocsToolset } from '../../../src/agent/tools/index.js';
import { scriptedToolCalls, startFakeModelServer, type FakeModelServer } from '../../fakes/fake-model-server.js';
import { createTemporaryWorkspace, OUTSIDE_SECRET, type TemporaryWorkspace } from './temporary-workspace.js';

const API_KEY = 'sk-test-model-key-0123456789abcdef';
const FORGE_TOKEN = 'ghp_forgeTokenThatMustStayHidden42';

let fixture: TemporaryWorkspace;
let server: FakeModelServer | undefined;

beforeEach(async () => {
  fixture = await createTemporaryWorkspace();
});

afterEach(async () => {
  await server?.close();
  server = undefined;
  await fixture.remove();
});

test('an agent run uses the tools over the real chat-completions protocol; failures and secrets stay in the sandbox', async () => {
  await fixture.put('docs.json', JSON.stringify({ navigation: [{ group: 'Start', pages: ['quickstart'] }] }));
  await fixture.put('quickstart.mdx', `---\ntitle: Quickstart\n---\n\nClone with https://${FORGE_TOKEN}@github.com/acme/docs.\n\nInstall with npm.\n`);
  await fixture.link('escape', fixture.outside);
  server = await startFakeModelServer({
    script: scriptedToolCalls(
      [
        [
          { name: 'read_file', arguments: { path: 'quickstart.mdx' } },
          { name: 'read_file', arguments: { path: 'escape/secret.txt' } },
        ],
        { name: 'edit_file', arguments: { path: 'quickstart.mdx', oldString: 'Install with npm.', newString: 'Install with `npm i docwright`.' } },
        { name: 'check_docs', arguments: {} },
      ],
      'Updated the install instructions.',
    ),
  });
  const toolset = createDocsToolset({ workspace: fixture.workspace, secrets: [API_KEY, FORGE_TOKEN] });

  const result = await runAgent({
    model: resolveLanguageModel('openai-compatible:fake', { openaiCompatibleBaseUrl: server.url, openaiCompatibleApiKey: API_KEY }),
    tools: toolset.tools,
    system: 'You edit documentation.',
    messages: [{ role: 'user', content: 'Improve the install step.' }],
    budgets: resolveBudgets({ maxSteps: 10 }),
    maxRetries: 0,
  });

  expect(result.finalMessage).toBe('Updated the install instructions.');
  expect(await readRaw(path.join(fixture.workspace, 'quickstart.mdx'), 'utf8')).toContain('Install with `npm i docwright`.');
  expect(toolset.changedFiles()).toEqual(['quickstart.mdx']);

  // The first step's two calls: the read succeeded, the escape was refused and the run went on.
  expect(result.steps[0]?.toolCalls.map((call) => call.ok)).toEqual([true, false]);
  expect(result.steps[0]?.toolCalls[1]?.error).toMatch(/outside the workspace/);

  // What the model was sent: every tool, the redacted file, no outside content, the clean check.
  const toolNames = server.requests[0]?.toolNames ?? [];
  expect([...toolNames].sort()).toEqual(['check_docs', 'delete_file', 'edit_file', 'list_files', 'move_file', 'read_file', 'search', 'write_file']);
  const everythingSent = server.requests.map((request) => request.rawBody).join('\n');
  expect(everythingSent).not.toContain(FORGE_TOKEN);
  expect(everythingSent).not.toContain(OUTSIDE_SECRET);
  expect(everythingSent).toContain('[REDACTED]@github.com');
  const lastResults = server.requests.at(-1)?.toolResults ?? [];
  expect(JSON.parse(lastResults.at(-1) ?? '{}')).toEqual({ newProblems: [], preExisting: { total: 0, byKind: {} }, pagesChecked: 1, truncated: false });
});
