import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { BACKENDS, createEmptyPostgresDatabase } from '../helpers/test-database.js';
import { runCli } from '../helpers/run-cli.js';
import { openDatabase } from '../../src/db/open-database.js';
import { PasswordHasher } from '../../src/accounts/password-hasher.js';

describe.each(BACKENDS)('docwright users [%s]', (dialect) => {
  test('create reads the password from stdin (first user: admin), list shows users, mistakes exit 1', { timeout: 60_000 }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'docwright-cli-users-'));
    const environment: Record<string, string> = { DOCWRIGHT_DATA_DIR: dataDir };
    if (dialect === 'postgres') environment.DOCWRIGHT_DATABASE_URL = await createEmptyPostgresDatabase();
    const password = 'a very secret passphrase';

    const first = await runCli(['users', 'create', '--email', 'Ann@Example.com', '--json'], environment, { input: `${password}\n` });
    expect(first.code, first.stderr).toBe(0);
    const ann = JSON.parse(first.stdout);
    expect(ann).toEqual({ id: expect.any(String), email: 'Ann@Example.com', role: 'admin', createdAt: expect.any(String), mustChangePassword: false });
    expect(first.stdout + first.stderr).not.toContain(password);

    const second = await runCli(['users', 'create', '--email', 'bob@example.com'], environment, { input: 'another long password' });
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toMatch(/^Created member bob@example\.com/);

    const duplicate = await runCli(['users', 'create', '--email', 'ann@example.com', '--role', 'member'], environment, { input: `${password}\n` });
    expect(duplicate.code).toBe(1);
    expect(duplicate.stderr).toContain('already exists');
    const short = await runCli(['users', 'create', '--email', 'carl@example.com'], environment, { input: 'short\n' });
    expect(short.code).toBe(1);
    expect(short.stderr).toContain('password: must be at least 10 characters');
    const badRole = await runCli(['users', 'create', '--email', 'dan@example.com', '--role', 'owner'], environment, { input: `${password}\n` });
    expect(badRole.code).toBe(2);

    const listed = JSON.parse((await runCli(['users', 'list', '--json'], environment)).stdout);
    expect(listed.users.map((user: { email: string; role: string }) => [user.email, user.role])).toEqual([
      ['Ann@Example.com', 'admin'],
      ['bob@example.com', 'member'],
    ]);
    const table = await runCli(['users', 'list'], environment);
    expect(table.stdout).toMatch(/EMAIL\s+ROLE/);

    // The stored hash is argon2id of exactly the line given (without its newline).
    const database = openDatabase({ databaseUrl: environment.DOCWRIGHT_DATABASE_URL, dataDir });
    try {
      const row = await database.db.selectFrom('users').select('password_hash').where('email_key', '=', 'ann@example.com').executeTakeFirstOrThrow();
      expect(row.password_hash).toMatch(/^\$argon2id\$/);
      expect(await new PasswordHasher().verify(row.password_hash, password)).toBe(true);
    } finally {
      await database.close();
    }
  });
});

test('users create --help says where the password comes from', async () => {
  const help = await runCli(['users', 'create', '--help'], {});
  expect(help.code).toBe(0);
  expect(help.stdout).toContain('standard input');
  expect(help.stdout).toContain('--role <role>');
});
