import { afterEach, describe, expect, test } from 'vitest';
import { systemClock } from '../../src/core/clock.js';
import { DocwrightError } from '../../src/core/errors.js';
import { SecretBox } from '../../src/core/secret-box.js';
import type { Database } from '../../src/db/database.js';
import { openPostgresDatabase } from '../../src/db/postgres-database.js';
import { openSqliteDatabase } from '../../src/db/sqlite-database.js';
import { ProjectRepository } from '../../src/projects/project-repository.js';
import { openRuntime } from '../../src/server/open-runtime.js';
import { loadMigrations, migrate } from '../../src/db/migrator.js';
import { sealLikeV1 } from '../helpers/legacy-secret.js';
import { TEST_SECRET, testConfig } from '../helpers/test-app.js';
import { BACKENDS, openTestDatabase, type TestDatabase } from '../helpers/test-database.js';

/**
 * Forge credentials are stored sealed for their project. A value copied into another
 * project's row does not open there; values older versions stored unbound (v1) are bound
 * to their project when a process starts, and are not readable unbound afterwards.
 */
const TOKEN_A = 'ghp_ProjectAToken0123456789abcdefghijkl';
const TOKEN_B = 'ghp_ProjectBToken0123456789abcdefghijkl';

describe.each(BACKENDS)('stored forge credentials [%s]', (dialect) => {
  let store: TestDatabase;
  const others: Database[] = [];
  afterEach(async () => {
    for (const database of others.splice(0)) await database.close();
    await store?.close();
  });

  const repository = (database: Database, secret = TEST_SECRET) => new ProjectRepository(database.db, systemClock, new SecretBox(secret));
  const input = (name: string) => ({ name, repository: 'https://github.com/acme/docs', ref: 'main', forge: 'github' as const, settings: {} });
  const stored = async (id: string) =>
    (await store.database.db.selectFrom('projects').select('forge_credentials').where('id', '=', id).executeTakeFirstOrThrow()).forge_credentials;
  const copyCredentials = async (from: string, to: string) =>
    store.database.db
      .updateTable('projects')
      .set({ forge_credentials: await stored(from) })
      .where('id', '=', to)
      .execute();

  /** A second connection to the same database, as another process would have. */
  function secondConnection(): Database {
    const database = dialect === 'postgres' ? openPostgresDatabase(store.location, { maxConnections: 2 }) : openSqliteDatabase(store.location);
    others.push(database);
    return database;
  }

  /** A database as the version before migration 008 left it; `finish` applies 008 and later. */
  async function openBeforeMigration008(): Promise<{ finish: () => Promise<void> }> {
    store = await openTestDatabase(dialect, { migrate: false });
    await migrate(
      store.database,
      systemClock,
      loadMigrations(dialect).filter((migration) => migration.version < 8),
    );
    return {
      finish: async () => {
        await migrate(store.database, systemClock);
      },
    };
  }

  async function unreadable(promise: Promise<unknown>): Promise<DocwrightError> {
    const error = await promise.then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(DocwrightError);
    expect((error as DocwrightError).code).toBe('secret_unreadable');
    return error as DocwrightError;
  }

  test("credentials copied into another project's row do not open there", async () => {
    store = await openTestDatabase(dialect);
    const projects = repository(store.database);
    const a = await projects.create(input('A'), { token: TOKEN_A });
    const b = await projects.create(input('B'), { token: TOKEN_B });
    expect(await stored(a.id)).toMatch(/^v2\./);
    expect(await projects.credentials(a.id)).toEqual({ token: TOKEN_A });

    await copyCredentials(a.id, b.id);
    await unreadable(projects.credentials(b.id));
    expect(await projects.credentials(a.id)).toEqual({ token: TOKEN_A });

    await projects.update(b.id, { credentials: { token: TOKEN_B } });
    expect(await projects.credentials(b.id)).toEqual({ token: TOKEN_B });
    await projects.update(b.id, { credentials: null });
    expect(await projects.credentials(b.id)).toBeNull();
  });

  test('v1 values are bound to their project when processes start, once, even when several start together', async () => {
    const { finish } = await openBeforeMigration008();
    const projects = repository(store.database);
    const [a, b, current, none, foreign] = await Promise.all(['A', 'B', 'Current', 'None', 'Foreign'].map((name) => projects.create(input(name))));
    const legacyA = sealLikeV1(TEST_SECRET, JSON.stringify({ token: TOKEN_A }));
    const legacyForeign = sealLikeV1('another-instance-secret-0123456789abcdef', JSON.stringify({ token: TOKEN_B }));
    const write = (id: string, value: string | null) =>
      store.database.db.updateTable('projects').set({ forge_credentials: value }).where('id', '=', id).execute();
    await write(a!.id, legacyA);
    await write(b!.id, sealLikeV1(TEST_SECRET, JSON.stringify({ appId: '1', privateKey: 'pem', installationId: '2' })));
    await projects.update(current!.id, { credentials: { token: TOKEN_B } });
    const currentValue = await stored(current!.id);
    await write(foreign!.id, legacyForeign);
    // Unbound v1 is not opened, not even for the project it belongs to.
    await unreadable(projects.credentials(a!.id));
    await finish();

    // Two processes start at once on the same database and both upgrade.
    const config = testConfig(store.dataDir, dialect === 'postgres' ? { DOCWRIGHT_DATABASE_URL: store.location } : {});
    const runtimes = await Promise.all([openRuntime(config), openRuntime(config)]);
    for (const runtime of runtimes) await runtime.close();

    expect(await stored(a!.id)).toMatch(/^v2\./);
    expect(await projects.credentials(a!.id)).toEqual({ token: TOKEN_A });
    expect(await projects.credentials(b!.id)).toEqual({ appId: '1', privateKey: 'pem', installationId: '2' });
    expect(await stored(current!.id)).toBe(currentValue);
    expect(await projects.credentials(none!.id)).toBeNull();
    // A value this secret cannot open is left for the operator to replace.
    expect(await stored(foreign!.id)).toBe(legacyForeign);
    await unreadable(projects.credentials(foreign!.id));

    // Once bound, the old value copied elsewhere opens nowhere, and neither does A's new one.
    await write(b!.id, legacyA);
    await unreadable(projects.credentials(b!.id));
    await copyCredentials(a!.id, b!.id);
    await unreadable(projects.credentials(b!.id));

    // A v1 value replayed into another project's row after migration 008 is never adopted,
    // however often processes start: only the values 008 recorded, in their own rows, are.
    await write(none!.id, legacyA);
    const restarted = await openRuntime(config);
    await restarted.close();
    expect(await stored(none!.id)).toBe(legacyA);
    await unreadable(projects.credentials(none!.id));
    expect(await store.database.db.selectFrom('legacy_forge_credentials').select('project_id').execute()).toEqual([{ project_id: foreign!.id }]);
  });

  test('racing upgraders on several connections replace each v1 row exactly once', async () => {
    const { finish } = await openBeforeMigration008();
    const projects = repository(store.database);
    const rows = await Promise.all(Array.from({ length: 12 }, (_, index) => projects.create(input(`P${index}`))));
    for (const [index, row] of rows.entries()) {
      await store.database.db
        .updateTable('projects')
        .set({ forge_credentials: sealLikeV1(TEST_SECRET, JSON.stringify({ token: `${TOKEN_A}-${index}` })) })
        .where('id', '=', row.id)
        .execute();
    }
    await finish();
    const results = await Promise.all([
      projects.upgradeLegacyCredentials(),
      repository(secondConnection()).upgradeLegacyCredentials(),
      repository(secondConnection()).upgradeLegacyCredentials(),
    ]);
    expect(results.reduce((sum, result) => sum + result.upgraded, 0)).toBe(rows.length);
    for (const [index, row] of rows.entries()) expect(await projects.credentials(row.id)).toEqual({ token: `${TOKEN_A}-${index}` });
  });
});
