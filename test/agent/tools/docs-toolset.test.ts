import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { readFile as readRaw } from 'node:fs/promises';
import path from 'node:path';
import type { ToolSet } from 'ai';
import { createDocsToolset, REDACTED, createRedactor } from '../../../src/agent/tools/index.js';
import { createTemporaryWorkspace, type TemporaryWorkspace } from './temporary-workspace.js';

const TOKEN = 'ghp_5ecretT0kenValue/with+chars';
let fixture: TemporaryWorkspace;

beforeEach(async () => {
  fixture = await createTemporaryWorkspace();
});

afterEach(async () => {
  await fixture.remove();
});

function call(tools: ToolSet, name: string, input: object): Promise<unknown> {
  const selected = tools[name];
  if (selected?.execute === undefined) throw new Error(`no executable tool ${name}`);
  return Promise.resolve(selected.execute(input as never, { toolCallId: `call-${name}`, messages: [] })) as Promise<unknown>;
}

describe('createDocsToolset', () => {
  test('offers the eight documentation tools and nothing that runs commands', () => {
    const { tools } = createDocsToolset({ workspace: fixture.workspace });
    expect(Object.keys(tools).sort()).toEqual(
      ['check_docs', 'delete_file', 'edit_file', 'list_files', 'move_file', 'read_file', 'search', 'write_file'].sort(),
    );
    for (const definition of Object.values(tools)) {
      expect(definition.description).toBeTruthy();
      expect(typeof definition.execute).toBe('function');
    }
  });

  test('tools wait for the workspace to be ready, and answer with an error when it never is', async () => {
    let markReady: () => void = () => {};
    const ready = new Promise<void>((resolve) => {
      markReady = resolve;
    });
    const waiting = createDocsToolset({ workspace: fixture.workspace, ready });
    let settled = false;
    const written = call(waiting.tools, 'write_file', { path: 'late.md', content: 'after the clone\n' }).finally(() => {
      settled = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(settled).toBe(false);
    markReady();
    expect(await written).toMatchObject({ path: 'late.md' });
    expect(await readRaw(path.join(fixture.workspace, 'late.md'), 'utf8')).toBe('after the clone\n');

    const failed = Promise.reject(new Error('clone failed at /srv/secret/path'));
    const broken = createDocsToolset({ workspace: fixture.workspace, ready: failed });
    const answer = await call(broken.tools, 'read_file', { path: 'late.md' });
    expect(answer).toEqual({ ok: false, error: expect.stringContaining('could not be checked out') });
    expect(JSON.stringify(answer)).not.toContain('/srv/secret');
  });

  test('returns tool failures to the model as { ok: false, error } instead of throwing', async () => {
    const { tools } = createDocsToolset({ workspace: fixture.workspace });
    expect(await call(tools, 'read_file', { path: '../outside/secret.txt' })).toEqual({
      ok: false,
      error: expect.stringMatching(/contains "\.\."/),
    });
    await fixture.put('a.md', 'one one');
    expect(await call(tools, 'edit_file', { path: 'a.md', oldString: 'one', newString: 'two' })).toEqual({
      ok: false,
      error:
        'oldString occurs 2 times in a.md (all on line 1); include more surrounding context so that it matches exactly once, or set replaceAll to replace every occurrence.',
    });
  });

  test('hides internal errors behind a generic message and reports them to the host', async () => {
    const reported: string[] = [];
    const { tools } = createDocsToolset({
      workspace: path.join(fixture.base, 'no-such-workspace'),
      onUnexpectedError: (name) => reported.push(name),
    });
    const result = (await call(tools, 'read_file', { path: 'a.md' })) as { ok: boolean; error: string };
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(/^read_file failed because of an internal error/);
    expect(result.error).not.toContain(fixture.base);
    expect(reported).toEqual(['read_file']);
  });

  test('redacts known secrets from contents, paths, search results, errors and docs problems', async () => {
    await fixture.put('docs/leak.md', `token: ${TOKEN}\nurl: https://x-access-token:${encodeURIComponent(TOKEN)}@github.com/acme/docs\n`);
    await fixture.put(`docs/${TOKEN.replace('/', '-')}.md`, '[x](/missing)');
    const fileSecret = TOKEN.replace('/', '-');
    const { tools, checkDocs } = createDocsToolset({ workspace: fixture.workspace, secrets: [TOKEN, fileSecret, '', 'ab'] });

    const read = (await call(tools, 'read_file', { path: 'docs/leak.md' })) as { content: string };
    expect(read.content).toBe(`     1\ttoken: ${REDACTED}\n     2\turl: https://x-access-token:${REDACTED}@github.com/acme/docs`);
    const listed = JSON.stringify(await call(tools, 'list_files', {}));
    const searched = JSON.stringify(await call(tools, 'search', { query: 'token' }));
    const failed = JSON.stringify(await call(tools, 'read_file', { path: `docs/${fileSecret}/x.md` }));
    const problems = JSON.stringify(await checkDocs());
    for (const output of [listed, searched, failed, problems]) {
      expect(output).not.toContain(fileSecret);
      expect(output).not.toContain(TOKEN);
      expect(output).toContain(REDACTED);
    }
    // Secrets too short to be credentials are not applied, so ordinary text survives.
    expect(listed).toContain('docs/leak.md');
  });

  test('tracks the files changed through the tools', async () => {
    await fixture.put('old.md', 'old');
    await fixture.put('gone.md', 'gone');
    await fixture.put('page.md', 'Hello world');
    const toolset = createDocsToolset({ workspace: fixture.workspace });
    await call(toolset.tools, 'write_file', { path: 'new/page.mdx', content: '# New' });
    await call(toolset.tools, 'edit_file', { path: 'page.md', oldString: 'world', newString: 'docs' });
    await call(toolset.tools, 'move_file', { from: 'old.md', to: 'renamed.md' });
    await call(toolset.tools, 'delete_file', { path: 'gone.md' });
    await call(toolset.tools, 'write_file', { path: '.git/config', content: 'x' });
    await call(toolset.tools, 'read_file', { path: 'page.md' });
    expect(toolset.changedFiles()).toEqual(['gone.md', 'new/page.mdx', 'old.md', 'page.md', 'renamed.md']);
    expect(toolset.changes()).toEqual([
      { path: 'new/page.mdx', kind: 'written' },
      { path: 'page.md', kind: 'edited' },
      { path: 'old.md', kind: 'moved-from' },
      { path: 'renamed.md', kind: 'moved-to' },
      { path: 'gone.md', kind: 'deleted' },
    ]);
    expect(await readRaw(path.join(fixture.workspace, 'page.md'), 'utf8')).toBe('Hello docs');
    expect(await readRaw(path.join(fixture.workspace, '.git', 'config'), 'utf8')).toMatch(/repositoryformatversion/);
  });

  test('check_docs is available to the model and to the orchestrator', async () => {
    await fixture.put('page.mdx', 'Broken {');
    const toolset = createDocsToolset({ workspace: fixture.workspace });
    const viaTool = (await call(toolset.tools, 'check_docs', {})) as { newProblems: unknown[]; pagesChecked: number };
    expect(viaTool.pagesChecked).toBe(1);
    expect(viaTool.newProblems).toEqual([expect.objectContaining({ path: 'page.mdx', kind: 'mdx-syntax', line: 1 })]);
    expect((await toolset.checkDocs()).introduced).toEqual(viaTool.newProblems);
  });

  test("the orchestrator's final check takes in what the tools changed since the last check", async () => {
    await fixture.put('old-broken.mdx', 'Broken {');
    await fixture.put('other.mdx', '# Other');
    await fixture.put('linking.mdx', '[other](/other)');
    const toolset = createDocsToolset({ workspace: fixture.workspace });
    await call(toolset.tools, 'check_docs', {});
    await call(toolset.tools, 'write_file', { path: 'new.mdx', content: 'Also broken {' });
    expect((await toolset.checkDocs()).introduced.map((problem) => problem.path)).toEqual(['new.mdx', 'old-broken.mdx']);
    await call(toolset.tools, 'delete_file', { path: 'other.mdx' });
    expect((await toolset.checkDocs()).introduced.map((problem) => `${problem.path} ${problem.kind}`)).toEqual([
      'linking.mdx broken-link',
      'new.mdx mdx-syntax',
      'old-broken.mdx mdx-syntax',
    ]);
  });

  test('rejects invalid limits', () => {
    expect(() => createDocsToolset({ workspace: fixture.workspace, limits: { maxReadBytes: 0 } })).toThrow(/maxReadBytes/);
  });
});

describe('createRedactor', () => {
  test('replaces overlapping secrets whole, longest first, in nested values and keys', () => {
    const redact = createRedactor(['secret-1234', 'secret-1234-extended']);
    expect(redact({ 'k-secret-1234': ['a secret-1234-extended b', 7, null, { x: 'secret-1234' }] })).toEqual({
      [`k-${REDACTED}`]: [`a ${REDACTED} b`, 7, null, { x: REDACTED }],
    });
  });
});
