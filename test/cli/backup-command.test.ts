import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, expect, test } from 'vitest';
import { createDocsRepository } from '../helpers/docs-repository.js';
import { runCli } from '../helpers/run-cli.js';

const SECRET = 'backup-test-secret-backup-test-secret-0123';
let directory: string | undefined;
afterEach(() => {
  if (directory !== undefined) rmSync(directory, { recursive: true, force: true });
});

test('docwright backup copies the SQLite database while a writer holds a transaction, owner-only, and never over a file', { timeout: 120_000 }, async () => {
  directory = mkdtempSync(join(tmpdir(), 'docwright-backup-'));
  const environment = { DOCWRIGHT_DATA_DIR: join(directory, 'data'), DOCWRIGHT_SECRET: SECRET };
  const project = await runCli(['projects', 'create', '--name', 'Docs', '--repository', createDocsRepository(), '--json'], environment);
  expect(project.code, project.stderr).toBe(0);
  const projectId = (JSON.parse(project.stdout) as { id: string }).id;

  // Another process's write in progress: the copy must neither wait for it nor contain it.
  const writer = new BetterSqlite3(join(directory, 'data', 'docwright.sqlite'));
  writer.exec('begin immediate');
  writer.prepare("update projects set name = 'Uncommitted' where id = ?").run(projectId);
  const copy = join(directory, 'copy.sqlite');
  let result;
  try {
    result = await runCli(['backup', copy], environment, { timeoutMs: 60_000 });
  } finally {
    writer.exec('rollback');
    writer.close();
  }
  expect(result.code, result.stderr).toBe(0);
  expect(result.stdout).toMatch(/^Backed up .*docwright\.sqlite \(schema version \d+, [\d.]+ MiB\) to .*copy\.sqlite\.\n/);
  expect(result.stdout).toContain('DOCWRIGHT_SECRET');
  expect(statSync(copy).mode & 0o777).toBe(0o600);
  const restored = new BetterSqlite3(copy, { readonly: true });
  try {
    expect(restored.prepare('select name from projects where id = ?').get(projectId)).toEqual({ name: 'Docs' });
  } finally {
    restored.close();
  }

  const again = await runCli(['backup', copy], environment);
  expect(again.code).toBe(1);
  expect(again.stderr).toContain('exists');
});

test('docwright backup on PostgreSQL points at pg_dump and writes nothing', async () => {
  directory = mkdtempSync(join(tmpdir(), 'docwright-backup-'));
  const result = await runCli(['backup', join(directory, 'copy.sqlite')], {
    DOCWRIGHT_DATA_DIR: join(directory, 'data'),
    DOCWRIGHT_SECRET: SECRET,
    DOCWRIGHT_DATABASE_URL: 'postgres://docwright:secret@127.0.0.1:1/docwright',
  });
  expect(result.code).toBe(1);
  expect(result.stderr).toContain('pg_dump');
  expect(() => statSync(join(directory ?? '', 'copy.sqlite'))).toThrow();
});
