import { afterAll, afterEach, beforeEach, describe, expect, test } from 'vitest';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createDocsToolset, ToolWorkerPool } from '../../../src/agent/tools/index.js';
import { WorkspaceFiles } from '../../../src/agent/tools/workspace-files.js';
import { findConfigReferences } from '../../../src/agent/tools/docs-config-references.js';
import { runDocsCheck } from '../../../src/cli/docs-check-run.js';
import { createTemporaryWorkspace, type TemporaryWorkspace } from './temporary-workspace.js';

/**
 * Issue 33's finding, as reported: a repository with a directory link `b` to another
 * project's repository and a docs.json of `{"$ref": "b/docs.json"}`. check_docs listed
 * the other project's pages, and `move_file quickstart.mdx x.mdx` rewrote the other
 * project's docs.json on disk.
 */
const OTHER_PAGE = 'other-project-private-roadmap';
const OTHER_CONFIG = `${JSON.stringify({ name: 'Other', openapi: 'roadmap-api.yaml', navigation: [{ group: 'Other', pages: ['quickstart', OTHER_PAGE] }] }, null, 2)}\n`;

let fixture: TemporaryWorkspace;
let otherRepository: string;
const workers = new ToolWorkerPool();
afterAll(() => workers.close());

beforeEach(async () => {
  fixture = await createTemporaryWorkspace();
  otherRepository = path.join(fixture.outside, 'other-project');
  await mkdir(otherRepository, { recursive: true });
  await writeFile(path.join(otherRepository, 'docs.json'), OTHER_CONFIG);
  await writeFile(path.join(otherRepository, `${OTHER_PAGE}.mdx`), '# Roadmap\n');
  await fixture.link('b', otherRepository);
  await fixture.put('docs.json', JSON.stringify({ $ref: 'b/docs.json' }));
  await fixture.put('quickstart.mdx', '---\ntitle: Quickstart\n---\n\n# Quickstart\n');
});

afterEach(async () => {
  await fixture.remove();
});

async function call(tools: ReturnType<typeof createDocsToolset>['tools'], name: string, input: object): Promise<unknown> {
  return (await tools[name]!.execute!(input as never, { toolCallId: name, messages: [] })) as unknown;
}

describe('a directory link to another project, named by $ref', () => {
  test('check_docs does not read the other project, and move_file leaves its docs.json alone', async () => {
    const before = await stat(path.join(otherRepository, 'docs.json'));
    const unexpected: unknown[] = [];
    const { tools, changedFiles } = createDocsToolset({ workspace: fixture.workspace, workers, onUnexpectedError: (_name, error) => unexpected.push(error) });

    const checked = await call(tools, 'check_docs', {});
    expect(JSON.stringify(checked)).not.toContain(OTHER_PAGE);
    expect(checked).toMatchObject({
      newProblems: [{ path: 'docs.json', kind: 'navigation', message: '$ref "b/docs.json" points to b/docs.json, which does not exist or could not be read.' }],
    });

    const moved = await call(tools, 'move_file', { from: 'quickstart.mdx', to: 'x.mdx' });
    expect(moved).toMatchObject({ from: 'quickstart.mdx', to: 'x.mdx', navigationUpdated: [] });
    expect(JSON.stringify(moved)).not.toContain(OTHER_PAGE);
    expect(await readFile(path.join(otherRepository, 'docs.json'), 'utf8')).toBe(OTHER_CONFIG);
    expect((await stat(path.join(otherRepository, 'docs.json'))).mtimeMs).toBe(before.mtimeMs);
    expect(changedFiles()).toEqual(['quickstart.mdx', 'x.mdx']);
    expect(JSON.stringify(await call(tools, 'check_docs', {}))).not.toContain(OTHER_PAGE);
    expect(unexpected).toEqual([]);
  });

  test('the workspace reader, the write policy and the docs check command read nothing through the link', async () => {
    const files = new WorkspaceFiles(fixture.workspace);
    expect(await files.listFiles()).toEqual(['docs.json', 'quickstart.mdx']);
    expect(await files.readFiles(['b/docs.json', `b/${OTHER_PAGE}.mdx`], 1_000_000)).toEqual(
      new Map([
        ['b/docs.json', { status: 'missing' }],
        [`b/${OTHER_PAGE}.mdx`, { status: 'missing' }],
      ]),
    );
    // The policy lets the agent change what the config pulls in; through the link, nothing is pulled in.
    expect(await findConfigReferences(fixture.workspace)).toEqual(['b/docs.json']);
    const { result } = await runDocsCheck({ directory: fixture.workspace });
    expect(JSON.stringify(result)).not.toContain(OTHER_PAGE);
    expect(result.introduced.map((problem) => problem.message)).toContain(
      '$ref "b/docs.json" points to b/docs.json, which does not exist or could not be read.',
    );
  });
});
