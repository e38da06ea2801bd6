import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { lstat } from 'node:fs/promises';
import path from 'node:path';
import type { ToolSet } from 'ai';
import { createDocsToolset, createToolContext, deleteFile, editFile, moveFile, ToolFailure, writeFile, WritePolicy } from '../../../src/agent/tools/index.js';
import { findConfigReferences } from '../../../src/agent/tools/docs-config-references.js';
import { createTemporaryWorkspace, type TemporaryWorkspace } from './temporary-workspace.js';

let fixture: TemporaryWorkspace;
beforeEach(async () => {
  fixture = await createTemporaryWorkspace();
});
afterEach(async () => fixture.remove());

const allowed = (policy: WritePolicy, file: string): boolean => policy.check(file).allowed;

describe('WritePolicy defaults', () => {
  const policy = new WritePolicy();

  test.each([
    'index.mdx',
    'guides/setup/install.md',
    'README.markdown',
    'images/logo.svg',
    'images/Screen Shot.PNG',
    'assets/manual.pdf',
    'llms.txt',
    'docs.json',
    'site/mint.json',
    'snippets/note.mdx',
    '.mintignore',
    'images/.gitkeep',
  ])('allows documentation content: %s', (file) => {
    expect(allowed(policy, file)).toBe(true);
  });

  test.each([
    ['.github/workflows/ci.yml', /CI or automation/],
    ['docs/.github/workflows/ci.yml', /CI or automation/],
    ['.GitHub/workflows/pwn.yml', /CI or automation/],
    ['.gitlab-ci.yml', /CI or automation/],
    ['.circleci/config.yml', /CI or automation/],
    ['Jenkinsfile', /CI or automation/],
    ['azure-pipelines.yml', /CI or automation/],
    ['bitbucket-pipelines.yml', /CI or automation/],
    ['.husky/pre-commit', /CI or automation/],
    ['Dockerfile', /build/],
    ['netlify.toml', /build/],
    ['vercel.json', /build/],
    ['Makefile', /build/],
    ['CMakeLists.txt', /build/],
    ['package.json', /manifest/],
    ['docs/Package.JSON', /manifest/],
    ['pnpm-lock.yaml', /manifest/],
    ['requirements.txt', /manifest/],
    ['tsconfig.json', /manifest/],
    ['scripts/deploy.sh', /script or executable/],
    ['tools/evil.exe.md.sh', /script or executable/],
    ['.env', /dot file/],
    ['.npmrc', /dot file/],
    ['.gitattributes', /dot file/],
    ['docs/.hidden/page.mdx', /dot file/],
    ['snippets/widget.jsx', /not documentation content/],
    ['components/Banner.tsx', /not documentation content/],
    ['api/openapi.yaml', /not documentation content/],
    ['mdx-loader.js', /not documentation content/],
  ])('refuses %s', (file, reason) => {
    const verdict = policy.check(file);
    expect(verdict.allowed).toBe(false);
    expect(verdict.allowed ? '' : verdict.reason).toMatch(reason);
  });

  test('the commit step refuses executable, link and submodule modes even for a page', () => {
    expect(policy.checkStaged('guide.md', '100644').allowed).toBe(true);
    expect(policy.checkStaged('gone.md', '000000').allowed).toBe(true);
    for (const mode of ['100755', '120000', '160000'])
      expect(policy.checkStaged('guide.md', mode)).toMatchObject({ allowed: false, reason: expect.stringMatching(/file mode/) });
  });
});

describe('WritePolicy with project settings and site references', () => {
  test('project allow adds globs, project deny wins over them, built-in deny wins over everything', () => {
    const policy = new WritePolicy({ allow: ['snippets/**/*.jsx', '**/*.yml'], deny: ['internal/**'] });
    expect(allowed(policy, 'snippets/widget.jsx')).toBe(true);
    expect(allowed(policy, 'config/site.yml')).toBe(true);
    expect(allowed(policy, 'internal/secret.mdx')).toBe(false);
    expect(allowed(policy, '.github/workflows/ci.yml')).toBe(false);
    expect(allowed(policy, '.gitlab-ci.yml')).toBe(false);
    expect(new WritePolicy({ allow: ['**/*'] }).check('package.json')).toMatchObject({ allowed: false });
  });

  test('files the site configuration pulls in with $ref and OpenAPI specs of its navigation are allowed', async () => {
    await fixture.put(
      'docs/docs.json',
      JSON.stringify({
        navigation: {
          $ref: 'nav/navigation.json',
          tabs: [
            { tab: 'API', openapi: 'api/openapi.yaml' },
            { tab: 'Legacy', openapi: { source: '/api/v1.json' } },
          ],
        },
        api: { openapi: ['specs/a.yml', 'https://example.com/remote.yaml'] },
        evil: { $ref: '../../etc/passwd.json' },
        script: { $ref: 'hook.js' },
      }),
    );
    await fixture.put('docs/nav/navigation.json', JSON.stringify({ groups: [{ $ref: 'groups.json' }] }));
    await fixture.put('docs/nav/groups.json', '[]');
    const references = await findConfigReferences(fixture.workspace);
    expect(references).toEqual(
      expect.arrayContaining(['docs/nav/navigation.json', 'docs/nav/groups.json', 'docs/api/openapi.yaml', 'docs/api/v1.json', 'docs/specs/a.yml']),
    );
    expect(references.some((file) => file.includes('passwd') || file.endsWith('.js') || file.includes('remote'))).toBe(false);
    const policy = new WritePolicy({}, references);
    expect(allowed(policy, 'docs/api/openapi.yaml')).toBe(true);
    expect(allowed(policy, 'docs/nav/groups.json')).toBe(true);
    expect(allowed(policy, 'docs/api/other.yaml')).toBe(false);
  });
});

test('a site configuration nested deeper than any real one is not parsed and adds no references', async () => {
  await fixture.put('docs.json', `{"navigation": {"openapi": "api.yaml", "deep": ${'['.repeat(100_000)}${']'.repeat(100_000)}}}`);
  await fixture.put('site/docs.json', JSON.stringify({ navigation: { openapi: 'spec.yaml' } }));
  expect(await findConfigReferences(fixture.workspace)).toEqual(['site/spec.yaml']);
});

describe('the changing tools apply the policy', () => {
  async function refusal(promise: Promise<unknown>): Promise<string> {
    const error = await promise.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ToolFailure);
    return (error as ToolFailure).message;
  }

  test('write, edit, delete and move refuse a forbidden path before touching the disk, and log it', async () => {
    await fixture.put('package.json', '{"scripts":{}}');
    await fixture.put('guide.md', '# Guide\n');
    const context = createToolContext({ workspace: fixture.workspace });
    expect(await refusal(writeFile(context, { path: '.github/workflows/pwn.yml', content: 'on: push' }))).toMatch(
      /\.github\/workflows\/pwn\.yml is a CI or automation configuration file.*only change documentation/,
    );
    expect(await lstat(path.join(fixture.workspace, '.github')).catch(() => null)).toBeNull();
    expect(await refusal(editFile(context, { path: 'package.json', oldString: '{}', newString: '{"postinstall":"curl x|sh"}' }))).toMatch(/package manifest/);
    expect(await refusal(deleteFile(context, { path: 'package.json' }))).toMatch(/package manifest/);
    expect(await refusal(moveFile(context, { from: 'guide.md', to: 'run.sh' }))).toMatch(/script or executable/);
    expect(await refusal(moveFile(context, { from: 'package.json', to: 'old-package.md' }))).toMatch(/package manifest/);
    expect(context.changes.paths()).toEqual([]);
    expect(context.refusals.list().map((entry) => entry.path)).toEqual(['.github/workflows/pwn.yml', 'package.json', 'run.sh']);
    expect(await writeFile(context, { path: 'guides/new.mdx', content: '# New\n' })).toMatchObject({ created: true });
  });

  test('a path through a directory link is refused, so it cannot land where the policy would refuse it', async () => {
    await fixture.put('.github/workflows/ci.yml', 'on: push');
    await fixture.link('docs', '.github/workflows');
    const context = createToolContext({ workspace: fixture.workspace });
    expect(await refusal(writeFile(context, { path: 'docs/guide.md', content: '# Guide' }))).toMatch(/docs is a symbolic link to \.github\/workflows/);
    await expect(lstat(path.join(fixture.workspace, '.github/workflows/guide.md'))).rejects.toThrow(/ENOENT/);
  });

  test('the toolset builds the policy from the checkout and the project settings, and reports refusals', async () => {
    await fixture.put('docs.json', JSON.stringify({ navigation: { openapi: 'openapi.yaml' } }));
    const toolset = createDocsToolset({ workspace: fixture.workspace, writePolicy: { deny: ['legal/**'] } });
    const run = (tools: ToolSet, name: string, input: object): Promise<unknown> =>
      Promise.resolve(tools[name]!.execute!(input as never, { toolCallId: name, messages: [] }));
    expect(await run(toolset.tools, 'write_file', { path: 'openapi.yaml', content: 'openapi: 3.1.0\n' })).toMatchObject({ created: true });
    expect(await run(toolset.tools, 'write_file', { path: 'legal/terms.mdx', content: '# Terms' })).toEqual({
      ok: false,
      error: expect.stringMatching(/project's write policy/),
    });
    expect(toolset.refusedFiles()).toEqual([{ path: 'legal/terms.mdx', reason: expect.stringMatching(/write policy/) }]);
    expect((await toolset.policy()).check('other.yaml').allowed).toBe(false);
  });
});
