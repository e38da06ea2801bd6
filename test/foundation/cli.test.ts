import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { describe, expect, test } from 'vitest';
import { BACKENDS, createEmptyPostgresDatabase } from '../helpers/test-database.js';
import { runCli } from '../helpers/run-cli.js';

function makeGitRepository(): string {
  const directory = mkdtempSync(join(tmpdir(), 'docwright-repo-'));
  execFileSync('git', ['init', '-q', '-b', 'main', directory]);
  return directory;
}

describe.each(BACKENDS)('projects and keys CLI [%s]', (dialect) => {
  test('create, list, show, keys create/list/revoke with --json', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'docwright-cli-'));
    const environment: Record<string, string> = { DOCWRIGHT_DATA_DIR: dataDir };
    if (dialect === 'postgres') environment.DOCWRIGHT_DATABASE_URL = await createEmptyPostgresDatabase();
    const repository = makeGitRepository();

    const created = await runCli(['projects', 'create', '--name', 'Docs', '--repository', repository, '--json'], environment);
    expect(created.code, created.stderr).toBe(0);
    const project = JSON.parse(created.stdout);
    expect(Object.keys(project).sort()).toEqual(['createdAt', 'forge', 'hasForgeCredentials', 'id', 'name', 'ref', 'repository', 'settings', 'updatedAt']);
    expect(project).toMatchObject({ name: 'Docs', repository, ref: 'main', forge: 'local', settings: {} });
    expect(project.id).toMatch(/^[0-9A-Za-z]{22}$/);

    const listed = JSON.parse((await runCli(['projects', 'list', '--json'], environment)).stdout);
    expect(listed.projects.map((item: { id: string }) => item.id)).toEqual([project.id]);
    const shown = JSON.parse((await runCli(['projects', 'show', project.id, '--json'], environment)).stdout);
    expect(shown).toEqual(project);

    const keyRun = await runCli(['keys', 'create', '--project', project.id, '--json'], environment);
    expect(keyRun.code, keyRun.stderr).toBe(0);
    const key = JSON.parse(keyRun.stdout);
    expect(Object.keys(key).sort()).toEqual(['id', 'key', 'projectId', 'scope']);
    expect(key).toMatchObject({ scope: 'admin', projectId: project.id });
    expect(key.key).toMatch(/^dw_admin_[0-9A-Za-z]{36}$/);

    const ingest = JSON.parse((await runCli(['keys', 'create', '--project', project.id, '--scope', 'ingest', '--json'], environment)).stdout);
    expect(ingest.key).toMatch(/^dw_ingest_/);

    const keys = JSON.parse((await runCli(['keys', 'list', '--project', project.id, '--json'], environment)).stdout).keys;
    expect(keys).toHaveLength(2);
    expect(JSON.stringify(keys)).not.toContain(key.key);

    const revoked = JSON.parse((await runCli(['keys', 'revoke', key.id, '--json'], environment)).stdout);
    expect(revoked.revokedAt).not.toBeNull();

    // No full key appears anywhere in the stored data.
    if (dialect === 'sqlite') {
      for (const file of readdirSync(dataDir)) {
        const bytes = readFileSync(join(dataDir, file));
        expect(bytes.includes(key.key), file).toBe(false);
        expect(bytes.includes(ingest.key), file).toBe(false);
      }
    } else {
      const client = new pg.Client(environment.DOCWRIGHT_DATABASE_URL);
      await client.connect();
      const tables = (await client.query("select tablename from pg_tables where schemaname = 'public'")).rows.map((row) => row.tablename as string);
      let dump = '';
      for (const table of tables) dump += JSON.stringify((await client.query(`select * from ${table}`)).rows);
      await client.end();
      expect(dump).toContain(project.id);
      expect(dump).not.toContain(key.key);
      expect(dump).not.toContain(ingest.key);
    }
  });
});

describe('CLI errors and help', () => {
  test('bad input gets a clear message and a non-zero exit', async () => {
    const environment = { DOCWRIGHT_DATA_DIR: mkdtempSync(join(tmpdir(), 'docwright-cli-')) };
    const notRepository = await runCli(['projects', 'create', '--name', 'Docs', '--repository', '/nonexistent/path'], environment);
    expect(notRepository.code).toBe(1);
    expect(notRepository.stderr).toContain('repository: /nonexistent/path is not a local git repository');
    const unknownProject = await runCli(['keys', 'create', '--project', 'nope'], environment);
    expect(unknownProject.code).toBe(1);
    expect(unknownProject.stderr).toContain('No project with id "nope"');
    const badScope = await runCli(['keys', 'create', '--project', 'x', '--scope', 'root'], environment);
    expect(badScope.code).toBe(2);
    expect(badScope.stderr).toMatch(/Allowed choices are admin, ingest/);
    const badConfig = await runCli(['projects', 'list'], { ...environment, PORT: 'abc' });
    expect(badConfig.code).toBe(2);
    expect(badConfig.stderr).toContain('PORT');
  });

  test('every command has help text', async () => {
    const environment = { DOCWRIGHT_DATA_DIR: mkdtempSync(join(tmpdir(), 'docwright-cli-')) };
    const root = await runCli(['--help'], environment);
    expect(root.code).toBe(0);
    const commands = [
      'serve',
      'worker',
      'migrate',
      'projects create',
      'projects set-credentials',
      'projects set-write-policy',
      'projects list',
      'projects show',
      'keys create',
      'keys list',
      'keys revoke',
    ];
    const results = await Promise.all(commands.map((command) => runCli([...command.split(' '), '--help'], environment)));
    results.forEach((result, index) => {
      expect(result.code, commands[index]).toBe(0);
      expect(result.stdout, commands[index]).toMatch(/^Usage: docwright /);
    });
  });
});
