import { closeSync, existsSync, openSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Command } from 'commander';
import { DocwrightError } from '../../core/errors.js';
import { PRIVATE_FILE_MODE } from '../../core/private-files.js';
import { loadConfig } from '../../config/load-config.js';

/**
 * `docwright backup FILE`: an online copy of the SQLite database (better-sqlite3's backup
 * API, i.e. SQLite's: a consistent snapshot while serve and workers keep writing), checked
 * with `PRAGMA quick_check` before it is reported. PostgreSQL has pg_dump and
 * point-in-time recovery for this (docs/operations.md, "Backup and restore").
 */
export function backupCommand(): Command {
  return new Command('backup')
    .description('Copy the SQLite database to FILE while Docwright runs (PostgreSQL: use pg_dump; see docs/operations.md).')
    .argument('<file>', 'where the copy goes; must not exist yet')
    .action(async (target: string) => {
      const config = loadConfig();
      if (config.databaseUrl !== undefined) {
        throw new DocwrightError(
          'unsupported_database',
          'The database is PostgreSQL: back it up with pg_dump or point-in-time recovery (docs/operations.md, "Backup and restore").',
          { status: 400 },
        );
      }
      const [{ default: BetterSqlite3 }, { SQLITE_FILE_NAME }] = await Promise.all([import('better-sqlite3'), import('../../db/open-database.js')]);
      const source = join(config.dataDir, SQLITE_FILE_NAME);
      if (!existsSync(source)) throw new DocwrightError('not_found', `No database at ${source} (DOCWRIGHT_DATA_DIR is ${config.dataDir}).`, { status: 404 });
      const destination = resolve(target);
      // Made here first, owner-only: the copy holds key hashes, sessions and encrypted credentials.
      try {
        closeSync(openSync(destination, 'wx', PRIVATE_FILE_MODE));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'EEXIST')
          throw new DocwrightError('conflict', `${destination} exists; choose a new file name.`, { status: 409 });
        throw error;
      }
      let version: number;
      try {
        const database = new BetterSqlite3(source, { readonly: true, fileMustExist: true });
        try {
          database.pragma('busy_timeout = 15000');
          await database.backup(destination);
        } finally {
          database.close();
        }
        const copy = new BetterSqlite3(destination, { readonly: true, fileMustExist: true });
        try {
          const check = copy.pragma('quick_check', { simple: true });
          if (check !== 'ok') throw new DocwrightError('backup_damaged', `The copy failed its check (${String(check)}); it was removed.`);
          version = (copy.prepare('select max(version) as version from docwright_migrations').get() as { version: number | null }).version ?? 0;
        } finally {
          copy.close();
        }
      } catch (error) {
        rmSync(destination, { force: true });
        throw error;
      }
      const megabytes = statSync(destination).size / 2 ** 20;
      process.stdout.write(
        `Backed up ${source} (schema version ${version}, ${megabytes.toFixed(1)} MiB) to ${destination}.\n` +
          'It holds no secret: keep DOCWRIGHT_SECRET (or the data dir\'s "secret" file) too, apart from this copy, and the local-forge repositories.\n',
      );
    });
}
