import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, test } from 'vitest';
import { prepareSqliteRead } from '../../src/db/prepared-read.js';
import { writeTransaction } from '../../src/db/transaction.js';
import { openTestDatabase, type TestDatabase } from '../helpers/test-database.js';

describe('prepareSqliteRead', () => {
  const dialect = 'sqlite';
  let t: TestDatabase;
  afterEach(async () => t?.close());

  async function seedProject(id: string): Promise<void> {
    await t.database.db
      .insertInto('projects')
      .values({ id, name: id, repository: '/srv/docs', ref: 'main', forge: 'local', settings: '{}', created_at: 1, updated_at: 1 })
      .execute();
  }

  test('runs the compiled query with new parameters on every call, and finds nothing for unknown ones', async () => {
    t = await openTestDatabase(dialect);
    await seedProject('p1');
    await seedProject('p2');
    const read = prepareSqliteRead<{ id: string; name: string }>(
      t.database,
      t.database.db.selectFrom('projects').select(['id', 'name']).where('id', '=', '').compile(),
    );
    expect(await read.first(['p1'])).toEqual({ id: 'p1', name: 'p1' });
    expect(await read.first(['p2'])).toEqual({ id: 'p2', name: 'p2' });
    expect(await read.first(['nope'])).toBeUndefined();
  });

  test('never sees a write transaction half-done, and sees it once committed', async () => {
    t = await openTestDatabase(dialect);
    await seedProject('p1');
    const read = prepareSqliteRead<{ name: string }>(t.database, t.database.db.selectFrom('projects').select('name').where('id', '=', '').compile());
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let updated: () => void = () => {};
    const inside = new Promise<void>((resolve) => {
      updated = resolve;
    });
    const writing = writeTransaction(t.database, async (executor) => {
      await executor.updateTable('projects').set({ name: 'renamed' }).where('id', '=', 'p1').execute();
      updated();
      await held;
    });
    await inside;
    expect(await read.first(['p1'])).toEqual({ name: 'p1' });
    release();
    await writing;
    expect(await read.first(['p1'])).toEqual({ name: 'renamed' });
  });

  test('an unchanged database answers with the very same row; a commit by any connection is seen at once', async () => {
    t = await openTestDatabase(dialect);
    await seedProject('p1');
    const read = prepareSqliteRead<{ name: string }>(t.database, t.database.db.selectFrom('projects').select('name').where('id', '=', '').compile());
    const first = await read.first(['p1']);
    const again = await read.first(['p1']);
    expect(again).toEqual({ name: 'p1' });
    expect(again).toBe(first);

    await t.database.db.updateTable('projects').set({ name: 'by this process' }).where('id', '=', 'p1').execute();
    expect(await read.first(['p1'])).toEqual({ name: 'by this process' });

    // Another process sharing the file: its commit changes data_version too.
    const other = new BetterSqlite3(t.location);
    try {
      other.prepare("update projects set name = 'by another process' where id = 'p1'").run();
    } finally {
      other.close();
    }
    expect(await read.first(['p1'])).toEqual({ name: 'by another process' });
    await t.database.db.deleteFrom('projects').where('id', '=', 'p1').execute();
    expect(await read.first(['p1'])).toBeUndefined();
  });
});
