import { Command } from 'commander';
import { loadConfig } from '../../config/load-config.js';
import { createLogger } from '../../app/logger.js';
import { systemClock } from '../../core/clock.js';
import { withoutUrlPassword } from '../../core/url-password.js';
import { startupModelWarnings } from './startup-model-warnings.js';

// The server, the worker and the database drivers load only when a command runs, so
// `docwright --help` and the client commands start quickly.
const serverModule = () => import('../../server/start-server.js');
const modelProviderModule = () => import('../../agent/model-provider.js');

const signalsModule = () => import('../../server/shutdown-signals.js');
const publicUrlRuleModule = () => import('../../server/public-url-rule.js');

export function serveCommand(): Command {
  return new Command('serve')
    .description('Run the API, the dashboard and an in-process worker (migrates the store first).')
    .option('--no-worker', 'API only: leave jobs to separate `docwright worker` processes')
    .action(async (options: { worker: boolean }) => {
      const config = loadConfig();
      const logger = createLogger({ level: config.logLevel });
      const [{ startServer }, { missingModelCredentials }, { exitOnShutdownSignals, SHUTDOWN_MARGIN_MS }, { derivedPublicUrlWarning }] = await Promise.all([
        serverModule(),
        modelProviderModule(),
        signalsModule(),
        publicUrlRuleModule(),
      ]);
      for (const warning of startupModelWarnings(config, missingModelCredentials, systemClock.now())) logger.warn(warning);
      const server = await startServer({ config, logger, worker: options.worker });
      const publicUrlWarning = derivedPublicUrlWarning(config);
      if (publicUrlWarning) logger.warn(publicUrlWarning);
      logger.info(
        { url: server.url, publicUrl: config.publicUrl, database: server.services.database.dialect, dataDir: config.dataDir, worker: options.worker },
        `Docwright listening on ${server.url} (API reference at ${config.publicUrl}/docs)`,
      );
      exitOnShutdownSignals({
        logger,
        stop: () => server.stop(),
        deadlineMs: Math.max(config.worker.shutdownTimeoutMs, config.shutdownDelayMs) + SHUTDOWN_MARGIN_MS,
      });
    });
}

export function workerCommand(): Command {
  return new Command('worker')
    .description('Run a job worker only (no HTTP). Start several against one PostgreSQL database to share the work. Needs DOCWRIGHT_PUBLIC_URL.')
    .action(async () => {
      const config = loadConfig();
      const logger = createLogger({ level: config.logLevel });
      const [{ startWorker }, { missingModelCredentials }, { exitOnShutdownSignals, SHUTDOWN_MARGIN_MS }] = await Promise.all([
        serverModule(),
        modelProviderModule(),
        signalsModule(),
      ]);
      for (const warning of startupModelWarnings(config, missingModelCredentials, systemClock.now())) logger.warn(warning);
      const running = await startWorker({ config, logger });
      logger.info(
        { workerId: running.worker.workerId, database: running.services.database.dialect, concurrency: config.worker.concurrency, publicUrl: config.publicUrl },
        'Docwright worker started',
      );
      exitOnShutdownSignals({ logger, stop: () => running.stop(), deadlineMs: config.worker.shutdownTimeoutMs + SHUTDOWN_MARGIN_MS });
    });
}

export function migrateCommand(): Command {
  return new Command('migrate')
    .description('Apply pending database migrations. Safe to run from several processes at once.')
    .option('--json', 'print {"applied": [...], "current": N} as JSON')
    .action(async (options: { json?: boolean }) => {
      const config = loadConfig();
      const [{ openDatabase }, { migrate }, { ProjectRepository }, { SecretBox }] = await Promise.all([
        import('../../db/open-database.js'),
        import('../../db/migrator.js'),
        import('../../projects/project-repository.js'),
        import('../../core/secret-box.js'),
      ]);
      const database = openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
      try {
        const result = await migrate(database, systemClock).catch((error: unknown) => {
          throw withoutUrlPassword(error, config.databaseUrl);
        });
        const credentials = await new ProjectRepository(database.db, systemClock, new SecretBox(config.secret)).upgradeLegacyCredentials();
        if (credentials.unreadable > 0) {
          process.stderr.write(
            `docwright: ${credentials.unreadable} project(s) hold v1 forge credentials this DOCWRIGHT_SECRET cannot decrypt; set them again with \`docwright projects set-credentials\`.\n`,
          );
        }
        const applied = result.applied.map((migration) => `${String(migration.version).padStart(3, '0')}-${migration.name}`);
        if (options.json) {
          process.stdout.write(JSON.stringify({ applied, current: result.current, database: database.dialect }) + '\n');
        } else if (applied.length === 0) {
          process.stdout.write(`The ${database.dialect} database is up to date (version ${result.current}).\n`);
        } else {
          process.stdout.write(`Applied ${applied.length} migration(s) to ${database.dialect}: ${applied.join(', ')}. Now at version ${result.current}.\n`);
        }
      } finally {
        await database.close();
      }
    });
}
