import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { systemClock } from '../../src/core/clock.js';
import { resolveInstanceSecret } from '../../src/config/secret-file.js';
import { migrate } from '../../src/db/migrator.js';
import { openSqliteDatabase } from '../../src/db/sqlite-database.js';
import { prepareWorkspace } from '../../src/git/workspace.js';
import { workspacesDirectory } from '../../src/git/workspace.js';
import { scriptedToolCalls, type FakeModelScript } from '../fakes/fake-model-server.js';
import { createJobHarness, type JobHarness } from '../helpers/job-harness.js';
import { createDocsRepository } from '../helpers/docs-repository.js';

/**
 * What Docwright writes into its data dir (the database with sealed credentials, the
 * generated secret, clones of private repositories) is readable by its owner only, under
 * any umask: directories 0700, files 0600.
 */
const modeOf = (path: string): string => (statSync(path).mode & 0o777).toString(8);

let root: string;
let savedUmask: number;

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'docwright-modes-'));
  // The usual default; the modes asserted below must not come from the umask.
  savedUmask = process.umask(0o022);
});
afterEach(() => {
  process.umask(savedUmask);
  rmSync(root, { recursive: true, force: true });
});

describe('the SQLite database', () => {
  test('a new database, its -wal and -shm files, and the data dir made for it are owner-only', async () => {
    const dataDir = join(root, 'srv', 'docwright');
    const file = join(dataDir, 'docwright.sqlite');
    const database = openSqliteDatabase(file);
    try {
      await migrate(database, systemClock);
      expect(modeOf(join(root, 'srv'))).toBe('700');
      expect(modeOf(dataDir)).toBe('700');
      expect(modeOf(file)).toBe('600');
      expect(modeOf(`${file}-wal`)).toBe('600');
      expect(modeOf(`${file}-shm`)).toBe('600');
    } finally {
      await database.close();
    }
  });

  test('a database an older version left readable by others is narrowed when it is opened', async () => {
    const file = join(root, 'docwright.sqlite');
    // What older versions made: SQLite's own 0644 files, kept open by a still-running process.
    const older = new BetterSqlite3(file);
    older.pragma('journal_mode = WAL');
    older.exec('create table t (x integer); insert into t values (1);');
    expect(modeOf(file)).toBe('644');
    expect(modeOf(`${file}-wal`)).toBe('644');
    const database = openSqliteDatabase(file);
    try {
      await migrate(database, systemClock);
      expect([modeOf(file), modeOf(`${file}-wal`), modeOf(`${file}-shm`)]).toEqual(['600', '600', '600']);
      expect(older.prepare('select x from t').get()).toEqual({ x: 1 });
    } finally {
      await database.close();
      older.close();
    }
  });
});

test('a data dir made for the generated secret is owner-only, as is the secret', () => {
  const dataDir = join(root, 'data');
  resolveInstanceSecret(dataDir, undefined);
  expect(modeOf(dataDir)).toBe('700');
  expect(modeOf(join(dataDir, 'secret'))).toBe('600');
});

test('a prepared workspace is owner-only, and so is the directory made to hold it', async () => {
  const repository = createDocsRepository();
  try {
    const workspace = await prepareWorkspace({
      remoteUrl: repository,
      baseRef: 'main',
      branch: 'docwright/modes',
      directory: join(root, 'workspaces', 'job-1'),
    });
    expect(modeOf(join(root, 'workspaces'))).toBe('700');
    expect(modeOf(workspace.directory)).toBe('700');
    expect(readdirSync(workspace.directory)).toContain('docs.json');
  } finally {
    rmSync(repository, { recursive: true, force: true });
  }
});

describe('a job workspace during a run', () => {
  let h: JobHarness | undefined;
  afterEach(async () => h?.close());

  test('the workspaces dir and the job workspace are owner-only even with umask 000, and an existing loose workspaces dir is narrowed', async () => {
    const seen: Array<{ path: string; mode: string }> = [];
    let workspaces = '';
    const script: FakeModelScript = (request, callIndex) => {
      // By the second model call a tool has run, so the clone is there to look at.
      if (callIndex >= 1) {
        seen.push({ path: workspaces, mode: modeOf(workspaces) });
        for (const entry of readdirSync(workspaces)) seen.push({ path: entry, mode: modeOf(join(workspaces, entry)) });
      }
      return scriptedToolCalls([{ name: 'list_files', arguments: { pattern: '*.mdx' } }], 'Looked around.')(request, callIndex);
    };
    h = await createJobHarness('sqlite', script);
    workspaces = workspacesDirectory(h.config.dataDir);
    mkdirSync(workspaces, { mode: 0o755 });
    process.umask(0o000);
    const created = await h.request('POST', `/v2/agent/${h.projectId}/job`, { prompt: 'Look at the pages' });
    const done = await h.waitForSettled(created.body.id as string);
    expect(done.status).toBe('completed');
    expect(seen.length).toBeGreaterThanOrEqual(2);
    expect(seen[0]).toEqual({ path: workspaces, mode: '700' });
    for (const entry of seen.slice(1)) expect(entry.mode).toBe('700');
  });
});
