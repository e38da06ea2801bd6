import { Command } from 'commander';
import { loadConfig } from '../../config/load-config.js';
import { systemClock } from '../../core/clock.js';
import { DocwrightError } from '../../core/errors.js';
import { loadRangeFile, refreshRanges, saveRangeFile } from '../../analytics/verification/range-refresh.js';
import { printJson, printTable } from '../output.js';

const UPDATE_HELP = `
Fetches every operator's published address list (OpenAI, Google, Microsoft, Perplexity,
Apple: the sources are in the range file) and writes them to agent-ranges.json in
DOCWRIGHT_DATA_DIR, where a server reads them at start and picks up a newer copy within
30 s (so this works from cron with DOCWRIGHT_AGENT_RANGES_REFRESH_HOURS=0). A list that
cannot be fetched keeps its previous prefixes. Exit 1 when no list could be fetched.

--from URL fetches each list as URL/<list id>.json instead (a mirror you run; it is
trusted, so it may be on a private address or plain http).

Examples:
  docwright analytics agents update
  docwright analytics agents update --from https://mirror.internal/agent-ranges --json`;

/** `docwright analytics agents …`: the per-agent report (default), and the data agent verification relies on (local, against DOCWRIGHT_DATA_DIR). */
export function analyticsAgentsCommand(report: Command): Command {
  const command = new Command('agents').description(
    'AI agents: the per-agent report (default: `agents report`, on a running server), and the published address ranges used to verify them (`update`, `ranges`: local, DOCWRIGHT_DATA_DIR).',
  );
  command.addCommand(report, { isDefault: true });
  command.addHelpText(
    'after',
    `
Examples:
  docwright analytics agents --project prj_123 --from 2026-11-01   (the report)
  docwright analytics agents update                                 (refresh the ranges)
  docwright analytics agents ranges --json`,
  );
  command
    .command('update')
    .description("Refresh the agents' address ranges from their operators.")
    .option('--from <url>', 'fetch URL/<list id>.json from a mirror instead of the operators')
    .option('--json', 'print the result as JSON')
    .addHelpText('after', UPDATE_HELP)
    .action(async (options: { from?: string; json?: boolean }) => {
      const config = loadConfig();
      const current = await loadRangeFile(config.dataDir);
      const result = await refreshRanges(current, { clock: systemClock, ...(options.from === undefined ? {} : { from: options.from }) });
      const fetched = result.lists.filter((list) => list.ok).length;
      const written = fetched > 0 ? await saveRangeFile(config.dataDir, result.file) : null;
      if (options.json) {
        printJson({ version: result.file.version, file: written, lists: result.lists });
      } else {
        printTable(
          ['LIST', 'PREFIXES', 'STATUS', 'SOURCE'],
          result.lists.map((list) => [list.id, list.ok ? list.prefixes : null, list.ok ? 'fetched' : `kept: ${list.error}`, list.url]),
        );
        process.stdout.write(
          written === null ? 'Nothing fetched; the ranges are unchanged.\n' : `${fetched} of ${result.lists.length} lists fetched; written to ${written}.\n`,
        );
      }
      if (fetched === 0) throw new DocwrightError('ranges_not_fetched', 'No range list could be fetched.', { status: 502 });
    });
  command
    .command('ranges')
    .description('List the range lists in use, with their source and when they were fetched.')
    .option('--json', 'print the lists as JSON')
    .action(async (options: { json?: boolean }) => {
      const file = await loadRangeFile(loadConfig().dataDir);
      const lists = file.sets.map((set) => ({
        id: set.id,
        operator: set.operator,
        agents: set.agents,
        prefixes: set.prefixes.length,
        fetchedAt: set.fetchedAt,
        source: set.url,
      }));
      if (options.json) printJson({ version: file.version, lists });
      else
        printTable(
          ['LIST', 'OPERATOR', 'PREFIXES', 'FETCHED', 'SOURCE'],
          lists.map((list) => [list.id, list.operator, list.prefixes, list.fetchedAt, list.source]),
        );
    });
  return command;
}
