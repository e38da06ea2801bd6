import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import module from 'node:module';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { describe, expect, test } from 'vitest';
import { CLI, runCli } from '../helpers/run-cli.js';

/**
 * `bin/docwright.js` runs the compiled build with plain node (issue 12, item 5). Each child
 * preloads test/helpers/record-module-loads.mjs through NODE_OPTIONS, which lists every
 * module the process and its worker threads load, so the tests can show that nothing of
 * tsx, esbuild or a .ts source was loaded, and that each worker thread started from dist/.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const RECORDER = fileURLToPath(new URL('../helpers/record-module-loads.mjs', import.meta.url));

interface ModuleLog {
  loaded: string[];
  execArgv: string[];
}

function recordingEnvironment(): { environment: Record<string, string>; read: () => ModuleLog } {
  const file = join(mkdtempSync(join(tmpdir(), 'docwright-modules-')), 'modules.log');
  writeFileSync(file, '');
  return {
    environment: { NODE_OPTIONS: `--import=${RECORDER}`, DOCWRIGHT_TEST_MODULE_LOG: file },
    read: () => {
      const lines = readFileSync(file, 'utf8').split('\n');
      return {
        loaded: lines.filter((line) => line.startsWith('load ')).map((line) => line.slice(5)),
        execArgv: lines.filter((line) => line.startsWith('execArgv ')).map((line) => line.slice(9)),
      };
    },
  };
}

function distFile(path: string): string {
  return `file://${join(ROOT, 'dist', path)}`;
}

/** Nothing that compiles TypeScript, and no .ts file, was loaded; the CLI ran from dist/. */
function expectPlainNode(log: ModuleLog): void {
  expect(log.loaded).toContain(distFile('cli/main.js'));
  const typescript = log.loaded.filter((url) => /\/node_modules\/(tsx|esbuild|typescript)\/|\.[cm]?ts$/.test(url));
  expect(typescript).toEqual([]);
  // The recorder is the only option the children were given: no loader.
  for (const line of log.execArgv) expect(line).not.toMatch(/tsx|loader|experimental-strip-types/);
}

function gitRepository(): string {
  const directory = mkdtempSync(join(tmpdir(), 'docwright-build-repo-'));
  execFileSync('git', ['init', '-q', '-b', 'main', directory]);
  return directory;
}

describe('the compiled build', () => {
  test('is current: dist/ was built after every file under src/ (and the SDK source) changed (vitest global setup)', () => {
    const newest = (path: string): number => {
      const stats = statSync(path);
      return stats.isDirectory() ? Math.max(stats.mtimeMs, ...readdirSync(path).map((name) => newest(join(path, name)))) : stats.mtimeMs;
    };
    const inputs = Math.max(newest(join(ROOT, 'src')), newest(join(ROOT, 'packages', 'sdk', 'src')));
    expect(statSync(join(ROOT, 'dist', 'build-info.json')).mtimeMs).toBeGreaterThanOrEqual(inputs);
  });

  test('every entry has a source map whose sources are the files under src/ (or the SDK source, which the CLI bundles)', () => {
    const info = JSON.parse(readFileSync(join(ROOT, 'dist', 'build-info.json'), 'utf8')) as { entries: string[] };
    expect(info.entries).toEqual(expect.arrayContaining(['cli/main.js', 'agent/tools/tool-worker.js', 'analytics/ingest-worker.js']));
    const chunks = readdirSync(join(ROOT, 'dist', 'chunks')).filter((name) => name.endsWith('.js'));
    for (const file of [...info.entries, ...chunks.map((name) => `chunks/${name}`)]) {
      const path = join(ROOT, 'dist', file);
      expect(readFileSync(path, 'utf8'), file).toContain(`//# sourceMappingURL=${file.split('/').pop()}.map`);
      const map = JSON.parse(readFileSync(`${path}.map`, 'utf8')) as { sources: string[] };
      for (const source of map.sources) {
        const absolute = resolve(dirname(path), source);
        const underSources = absolute.startsWith(join(ROOT, 'src')) || absolute.startsWith(join(ROOT, 'packages', 'sdk', 'src'));
        expect(underSources, `${file}: ${source}`).toBe(true);
        expect(existsSync(absolute), `${file}: ${source}`).toBe(true);
      }
    }
  });

  test('stack traces name src/ files and lines where Node can limit source maps to Docwright (22.14 and later), dist/ files on Node 20', () => {
    const chunk = readdirSync(join(ROOT, 'dist', 'chunks')).find((name) => name.startsWith('migrator-') && name.endsWith('.js'));
    expect(chunk, 'the migrator, imported lazily by the CLI, is a chunk of its own').toBeDefined();
    const script = [
      `import { enableSourceMaps } from ${JSON.stringify(join(ROOT, 'src', 'core', 'source-maps.mjs'))};`,
      'enableSourceMaps();',
      `const { loadMigrations } = await import(${JSON.stringify(join(ROOT, 'dist', 'chunks', chunk!))});`,
      "try { loadMigrations('no-such-dialect'); } catch (error) { process.stdout.write(error.stack); }",
    ].join('\n');
    const stack = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', env: { PATH: process.env.PATH ?? '' } });
    const frame = stack.split('\n').find((line) => line.includes('loadMigrations'));
    const limited = typeof (module as { setSourceMapsSupport?: unknown }).setSourceMapsSupport === 'function';
    if (limited) expect(frame).toContain(`${join(ROOT, 'src', 'db', 'migrator.ts')}:`);
    else expect(frame).toMatch(new RegExp(`${pathToFileURL(join(ROOT, 'dist', 'chunks')).href}/[\\w-]+\\.js:\\d+:\\d+`));
  });

  test('`docwright --help` runs with plain node', async () => {
    const recording = recordingEnvironment();
    const result = await runCli(['--help'], recording.environment);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('Usage: docwright');
    expectPlainNode(recording.read());
  });

  test('`docwright docs check` runs its tool worker threads from dist/', async () => {
    const repository = gitRepository();
    mkdirSync(join(repository, 'docs'));
    writeFileSync(join(repository, 'docs', 'docs.json'), JSON.stringify({ name: 'Docs', navigation: { pages: ['index'] } }));
    writeFileSync(join(repository, 'docs', 'index.mdx'), '---\ntitle: Home\n---\n\n<Card title="Gone" href="/missing">x</Card>\n');
    const recording = recordingEnvironment();
    const result = await runCli(['docs', 'check', 'docs', '--json'], recording.environment, { cwd: repository });
    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout).toContain('/missing');
    const log = recording.read();
    expectPlainNode(log);
    // The MDX page was compiled on a worker thread started from the compiled entry.
    expect(log.loaded).toContain(distFile('agent/tools/tool-worker.js'));
  });

  test('`docwright serve` listens, answers /healthz and ingests on its worker threads with plain node', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'docwright-build-serve-'));
    const recording = recordingEnvironment();
    const environment = { DOCWRIGHT_DATA_DIR: dataDir, ...recording.environment };
    const project = JSON.parse((await runCli(['projects', 'create', '--name', 'Docs', '--repository', gitRepository(), '--json'], environment)).stdout) as {
      id: string;
    };
    const key = JSON.parse((await runCli(['keys', 'create', '--project', project.id, '--scope', 'ingest', '--json'], environment)).stdout) as { key: string };

    const child = spawn(process.execPath, [CLI, 'serve'], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', PORT: '0', ...environment },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    let output = '';
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`serve did not start: ${output}`)), 60_000);
        child.stdout.on('data', (chunk: Buffer) => {
          output += chunk.toString();
          const match = /"url":"(http:\/\/[^"]+)"/.exec(output);
          if (match) {
            clearTimeout(timer);
            resolve(match[1]!);
          }
        });
      });
      expect(await (await fetch(`${url}/healthz`)).json()).toEqual({ status: 'ok' });
      const ingest = await fetch(`${url}/v1/analytics/${project.id}/events`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          events: [{ path: '/guide', userAgent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 Chrome/140.0 Safari/537.36', ip: '192.0.2.1' }],
        }),
      });
      expect(ingest.status, await ingest.text()).toBe(202);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited, output).toBe(0);
    const log = recording.read();
    expectPlainNode(log);
    // With one CPU the ingest pool prepares batches inline and starts no worker.
    if (availableParallelism() > 1) expect(log.loaded).toContain(distFile('analytics/ingest-worker.js'));
    expect(output).not.toMatch(/worker (failed|exited|error)/i);
  }, 120_000);
});
