import { Command } from 'commander';
import { loadConfig } from '../../config/load-config.js';
import { systemClock } from '../../core/clock.js';
import { withoutUrlPassword } from '../../core/url-password.js';

const RECLASSIFY_HELP = `
Brings every stored analytics hit to the agent table this Docwright ships
(docs/classification.md, "Reclassification"): class, agent, category, verification,
read kind and AI referral, one site per transaction, with the rollups counted again by
the ordinary fold. Servers do the same by themselves a minute after they start; this
runs it now, in the foreground, with progress on stderr. Safe beside running servers
and other runs (each site is done once), and after an interruption (a later run does
what is left). With analytics in ClickHouse (DOCWRIGHT_ANALYTICS_URL) the hits are
rewritten there, under a new generation the reports switch to at once.

Examples:
  docwright reclassify
  docwright reclassify --json`;

/** `docwright reclassify`: the reclassification job on the configured database. */
export function reclassifyCommand(): Command {
  return new Command('reclassify')
    .description('Reclassify stored analytics hits with the current agent table (servers also do this after an upgrade).')
    .option('--json', 'print the final progress {"state", "tableVersion", "sites", "sitesDone", "hitsRewritten", "hitsRefolded"} as JSON')
    .addHelpText('after', RECLASSIFY_HELP)
    .action(async (options: { json?: boolean }) => {
      const config = loadConfig();
      const [{ openDatabase }, { migrate }, { sqlAnalyticsStore }, { ReclassificationJob }, { ClickHouseAnalyticsStore }] = await Promise.all([
        import('../../db/open-database.js'),
        import('../../db/migrator.js'),
        import('../../analytics/sql-analytics-store.js'),
        import('../../analytics/reclassification/reclassification-job.js'),
        import('../../analytics/clickhouse/clickhouse-analytics-store.js'),
      ]);
      const database = openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
      try {
        await migrate(database, systemClock).catch((error: unknown) => {
          throw withoutUrlPassword(error, config.databaseUrl);
        });
        const sqlStore = sqlAnalyticsStore(database);
        const clickhouse = config.analytics.clickhouse;
        const store = clickhouse === undefined ? sqlStore : new ClickHouseAnalyticsStore(sqlStore, clickhouse, systemClock);
        if (store instanceof ClickHouseAnalyticsStore) await store.ready();
        // The ranges the servers check against (agent-ranges.json in the data directory, else the shipped ones), so this run and theirs agree.
        const ranges = config.analytics.verification.enabled
          ? await import('../../analytics/verification/range-refresh.js').then(async ({ loadRangeFile }) =>
              (await import('../../analytics/verification/range-catalog.js')).buildRangeCatalog(await loadRangeFile(config.dataDir)),
            )
          : null;
        const job = new ReclassificationJob(store, {
          ranges,
          onProgress: (progress) => {
            if (progress.state === 'running' && process.stderr.isTTY) {
              process.stderr.write(`\rreclassifying: ${progress.sitesDone}/${progress.sites} sites, ${progress.hitsRewritten} hits`);
            }
          },
        });
        const result = await job.run();
        if (process.stderr.isTTY && result.sites > 0) process.stderr.write('\n');
        await store.close();
        if (store !== sqlStore) await sqlStore.close();
        if (options.json) {
          process.stdout.write(JSON.stringify(result) + '\n');
        } else if (result.sites === 0) {
          process.stdout.write(`Every stored hit is classified with agent table ${result.tableVersion}.\n`);
        } else {
          process.stdout.write(
            `Reclassified ${result.hitsRewritten} hit(s) of ${result.sitesDone} site(s) with agent table ${result.tableVersion}; ` +
              (result.hitsRefolded === 0
                ? 'no hit changed class or agent, so the reports needed no recount.\n'
                : `running servers count the ${result.hitsRefolded} hit(s) of the days whose class or agent changed into the reports shortly.\n`),
          );
        }
      } finally {
        await database.close();
      }
    });
}
