import { afterAll, describe, expect, test } from 'vitest';
import { lstat, mkdir, mkdtemp, readFile, readdir, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createDocsToolset, DEFAULT_TOOL_LIMITS, ToolWorkerPool } from '../../../src/agent/tools/index.js';
import { WorkspaceFiles } from '../../../src/agent/tools/workspace-files.js';
import { docsCheckLimits, poolDocsRunner } from '../../../src/agent/tools/docs-task-runner-pool.js';
import { DocsChecker } from '../../../src/docs-site/docs-checker.js';
import { findConfigReferences } from '../../../src/agent/tools/docs-config-references.js';
import { runDocsCheck } from '../../../src/cli/docs-check-run.js';

/**
 * Issue 33: the sandbox holds on every path. Random trees (a seeded PRNG, so a failure
 * names the seed that reproduces it) hold symbolic links at every depth: to files and
 * directories, inside the workspace and out of it (absolute, relative, chained, dangling,
 * into .git). Every agent tool and the docs check run against paths through them, and
 * none may read anything outside (the marker in every outside file never shows up) nor
 * change it (bytes, link targets and mtimes of everything outside, and of .git, are the
 * same after), nor change a file through a link inside the workspace.
 */
const MARKER = 'OUTSIDE-MARKER-q7';
// About 1 s a tree on a loaded 2-core machine.
const TREES = 16;

/** mulberry32: a few lines, deterministic per seed. */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Tree {
  base: string;
  workspace: string;
  outside: string;
  links: string[];
  /** Paths to hand the tools: files, directories, links and paths through links. */
  probes: string[];
}

const workers = new ToolWorkerPool();
afterAll(() => workers.close());

/** Another project's files: each holds the marker, its docs.json names marked pages and `$ref`s. */
async function writeOutside(outside: string): Promise<void> {
  for (const folder of ['', 'nested', 'nested/deeper']) {
    const at = path.join(outside, folder);
    await mkdir(at, { recursive: true });
    const config = {
      name: MARKER,
      navigation: [{ group: MARKER, pages: [`${MARKER}-page`, 'page'] }],
      openapi: `${MARKER}.yaml`,
      redirects: { $ref: `${MARKER}.json` },
    };
    await writeFile(path.join(at, 'docs.json'), JSON.stringify(config));
    await writeFile(path.join(at, 'page.mdx'), `# ${MARKER}\n\noutside body [x](/${MARKER}-link)\n`);
    await writeFile(path.join(at, 'snippet.mdx'), `outside body ${MARKER}\n`);
    await writeFile(
      path.join(at, 'openapi.yaml'),
      `openapi: 3.1.0\ninfo: {title: ${MARKER}, version: "1"}\npaths: {/${MARKER}: {get: {summary: ${MARKER}}}}\n`,
    );
    await writeFile(path.join(at, 'nav.json'), JSON.stringify([`${MARKER}-nav`]));
    // Named nowhere inside: it shows up only if something lists the outside directory.
    await writeFile(path.join(at, `hidden-${MARKER}.mdx`), 'outside body\n');
  }
}

async function buildTree(seed: number): Promise<Tree> {
  const random = prng(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const base = await mkdtemp(path.join(tmpdir(), 'docwright-symlink-tree-'));
  const workspace = path.join(base, 'workspace');
  const outside = path.join(base, 'outside');
  await mkdir(path.join(workspace, '.git'), { recursive: true });
  await writeFile(path.join(workspace, '.git', 'config'), `[core]\n\t# ${MARKER}\n`);
  await writeOutside(outside);

  const dirs = [''];
  for (let index = 0, count = 2 + Math.floor(random() * 5); index < count; index += 1) {
    const parent = pick(dirs);
    if (parent.split('/').length < 4) dirs.push(path.posix.join(parent, `${pick(['d', 'guides', 'snippets', 'api'])}${index}`));
  }
  const files: string[] = [];
  for (const dir of dirs) {
    for (let index = 0, count = 1 + Math.floor(random() * 2); index < count; index += 1) files.push(path.posix.join(dir, `p${files.length}.mdx`));
  }
  const depthOf = (relative: string): number => relative.split('/').length - 1;
  const links: string[] = [];
  const outsideTargets = ['', 'nested', 'nested/deeper', 'docs.json', 'page.mdx', 'nested/snippet.mdx', 'openapi.yaml'];
  for (let index = 0, count = 3 + Math.floor(random() * 6); index < count; index += 1) {
    const at = path.posix.join(pick(dirs), pick(['l', 'docs.json', 'page.mdx', 'images', 'snippets', 'openapi.yaml']) + (random() < 0.5 ? '' : String(index)));
    if (at === 'docs.json' || links.includes(at) || files.includes(at) || dirs.includes(at)) continue;
    const up = '../'.repeat(depthOf(at) + 1);
    const target = pick([
      () => path.join(outside, pick(outsideTargets)),
      () => `${up}outside/${pick(outsideTargets)}`,
      () => path.posix.relative(path.posix.dirname(at), pick(dirs) || '.') || '.',
      () => path.posix.relative(path.posix.dirname(at), pick(files)),
      () => path.join(outside, 'missing', 'x'),
      () => (links.length > 0 ? path.posix.relative(path.posix.dirname(at), pick(links)) : '..'),
      () => '..',
      () => `${up.slice(3)}.git`,
      () => '.',
    ])();
    await mkdir(path.join(workspace, path.dirname(at)), { recursive: true });
    await symlink(target, path.join(workspace, at));
    links.push(at);
  }
  const throughLinks = links.flatMap((link) =>
    ['docs.json', 'page.mdx', 'nested/page.mdx', 'new.mdx', 'snippet.mdx', 'config'].map((child) => `${link}/${child}`),
  );
  const probes = [...files, ...dirs.filter((dir) => dir !== '').map((dir) => `${dir}/new.mdx`), ...links, ...throughLinks];
  const slug = (relative: string): string => relative.replace(/\.mdx$/, '');
  for (const file of files) {
    const target = pick(probes);
    const text = [
      '---',
      `title: Page ${file}`,
      '---',
      '',
      `import Shared from '/${pick(throughLinks)}';`,
      '',
      `inside body of ${file}: [a](/${slug(target)}) [b](/${slug(pick(throughLinks))}) ![i](/${pick(links)}/img.png)`,
      '',
      '<Shared />',
      '',
    ].join('\n');
    await mkdir(path.join(workspace, path.dirname(file)), { recursive: true });
    await writeFile(path.join(workspace, file), text);
  }
  const configs = [
    { $ref: pick(throughLinks.filter((probe) => probe.endsWith('.json'))) },
    {
      name: 'Tree',
      navigation: { groups: [{ group: 'Pages', pages: [...files.slice(0, 3).map(slug), slug(pick(throughLinks))] }, { $ref: `${pick(links)}/nav.json` }] },
      openapi: `${pick(links)}/openapi.yaml`,
      redirects: { $ref: `${pick(links)}/docs.json` },
    },
  ];
  await writeFile(path.join(workspace, 'docs.json'), JSON.stringify(pick(configs)));
  if (random() < 0.5 && dirs.length > 1) await writeFile(path.join(workspace, pick(dirs.slice(1)), 'mint.json'), JSON.stringify(pick(configs)));
  return { base, workspace, outside, links, probes: [...probes, 'docs.json'] };
}

/** Everything outside the workspace, and its .git: type, bytes or link target, and mtime. */
async function protectedState(tree: Tree): Promise<Map<string, string>> {
  const state = new Map<string, string>();
  const walk = async (at: string): Promise<void> => {
    const stats = await lstat(at);
    const shown = path.relative(tree.base, at);
    if (stats.isSymbolicLink()) state.set(shown, `link ${await readlink(at)} ${stats.mtimeMs}`);
    else if (stats.isDirectory()) {
      state.set(shown, `dir ${stats.mtimeMs}`);
      for (const name of await readdir(at)) if (path.join(at, name) !== tree.workspace) await walk(path.join(at, name));
    } else state.set(shown, `file ${(await readFile(at)).toString('base64')} ${stats.mtimeMs}`);
  };
  await walk(tree.base);
  await walk(path.join(tree.workspace, '.git'));
  return state;
}

/** True when no directory on the way to `relative` (inside the workspace) is a symbolic link. */
async function reachedWithoutLinks(workspace: string, relative: string): Promise<boolean> {
  const segments = relative.split('/');
  for (let index = 1; index < segments.length; index += 1) {
    const stats = await lstat(path.join(workspace, ...segments.slice(0, index))).catch(() => undefined);
    if (stats === undefined) return true;
    if (stats.isSymbolicLink()) return false;
  }
  return true;
}

describe('symbolic links at every depth of random trees', () => {
  test(`no tool and no docs check reads or changes anything through a link (${TREES} trees)`, async () => {
    // Calls that did their work, per tool: refusing everything would pass the checks too.
    const succeeded = new Map<string, number>();
    let deepestLink = 0;
    for (let seed = 1; seed <= TREES; seed += 1) {
      const tree = await buildTree(seed);
      deepestLink = Math.max(deepestLink, ...tree.links.map((link) => link.split('/').length));
      const random = prng(seed * 7919);
      const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
      const before = await protectedState(tree);
      const unexpected: unknown[] = [];
      const toolset = createDocsToolset({ workspace: tree.workspace, workers, onUnexpectedError: (name, error) => unexpected.push([name, error]) });
      const call = async (name: string, input: object): Promise<unknown> => {
        const output = (await toolset.tools[name]!.execute!(input as never, { toolCallId: name, messages: [] })) as { ok?: false };
        if (output.ok !== false) succeeded.set(name, (succeeded.get(name) ?? 0) + 1);
        return { name, input, output };
      };
      const outputs: unknown[] = [await call('check_docs', {}), await call('list_files', {}), await call('search', { query: 'OUTSIDE-MARK.R', regex: true })];
      for (let round = 0; round < 4; round += 1) {
        const probe = pick(tree.probes);
        outputs.push(
          await call('read_file', { path: probe }),
          await call('list_files', { pattern: `${pick(tree.probes)}/**` }),
          await call('list_files', { pattern: pick(tree.probes) }),
          await call('search', { query: 'body', glob: `${pick(tree.links)}/**` }),
          await call('search', { query: 'outside|MARKER|body', regex: true, glob: pick(tree.probes) }),
          await call('write_file', { path: pick(tree.probes), content: 'written by the property test\n' }),
          await call('edit_file', { path: pick(tree.probes), oldString: 'outside body', newString: 'edited' }),
          await call('edit_file', { path: pick(tree.probes), oldString: 'inside body', newString: 'edited inside' }),
          await call('move_file', { from: pick(tree.probes), to: pick(tree.probes), redirect: random() < 0.3 }),
          await call('move_file', { from: pick(tree.probes), to: `moved-${round}.mdx` }),
          await call('delete_file', { path: pick(tree.probes) }),
          await call('check_docs', {}),
        );
      }
      // The command itself starts its own worker threads (seconds on a busy machine): run
      // once; the other trees get the same checker over the same reader, on shared workers.
      const checked =
        seed === 1
          ? (await runDocsCheck({ directory: tree.workspace })).result
          : await new DocsChecker({
              current: new WorkspaceFiles(tree.workspace),
              runner: poolDocsRunner(workers),
              limits: docsCheckLimits(DEFAULT_TOOL_LIMITS),
              timeoutMs: 60_000,
            }).check();
      const references = await findConfigReferences(tree.workspace);
      const where = `seed ${seed}`;
      // The inputs never hold the marker; an answer holding it read something outside.
      const leaks = [...outputs, { name: 'docs check', output: checked }, { name: 'config references', output: references }].filter((entry) =>
        JSON.stringify((entry as { output: unknown }).output).includes(MARKER),
      );
      expect(leaks, where).toEqual([]);
      expect(unexpected, where).toEqual([]);
      expect(await protectedState(tree), where).toEqual(before);
      const listed = outputs.flatMap((entry) => {
        const output = (entry as { output: { files?: string[]; matches?: Array<{ path: string }> } }).output;
        return [...(output.files ?? []), ...(output.matches ?? []).map((match) => match.path)];
      });
      const problemPaths = [...checked.introduced, ...checked.existing].map((problem) => problem.path);
      for (const relative of [...listed, ...toolset.changedFiles(), ...problemPaths]) {
        expect(await reachedWithoutLinks(tree.workspace, relative), `${where}: ${relative}`).toBe(true);
      }
      await rm(tree.base, { recursive: true, force: true });
    }
    expect(deepestLink).toBeGreaterThanOrEqual(4);
    for (const name of ['read_file', 'write_file', 'edit_file', 'move_file', 'delete_file', 'search', 'list_files', 'check_docs']) {
      expect(succeeded.get(name) ?? 0, name).toBeGreaterThan(0);
    }
  }, 120_000);
});
