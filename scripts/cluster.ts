/**
 * `npm run cluster [-- --api N --workers N --port P --no-proxy --dir DIR]`: a local Docwright
 * cluster on PostgreSQL, stopped in order on Ctrl-C. See `--help` and docs/operations.md
 * ("Local cluster").
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { CLUSTER_USAGE, ClusterArgumentError, parseClusterArguments } from './cluster/cluster-arguments.js';
import { signalManagedChildren } from './cluster/managed-child.js';
import { prefixedOutput, wantsColour } from './cluster/prefixed-output.js';
import { startCluster, type Cluster } from './cluster/start-cluster.js';

/** A signal this soon after the first is the same Ctrl-C: npm forwards the terminal's SIGINT a second time. */
const SAME_SIGNAL_MS = 500;

let args;
try {
  args = parseClusterArguments(process.argv.slice(2));
} catch (error) {
  if (!(error instanceof ClusterArgumentError)) throw error;
  process.stderr.write(`cluster: ${error.message}\n\n${CLUSTER_USAGE}`);
  process.exit(2);
}
if (args.help) {
  process.stdout.write(CLUSTER_USAGE);
  process.exit(0);
}

const output = prefixedOutput(process.stdout, wantsColour(process.stdout, process.env));
output.alignTo([
  'postgres',
  ...Array.from({ length: args.api }, (_, index) => `api-${index + 1}`),
  ...Array.from({ length: args.workers }, (_, index) => `worker-${index + 1}`),
]);
const temporary = args.directory === undefined;
const directory = args.directory === undefined ? mkdtempSync(join(tmpdir(), 'docwright-cluster-')) : resolve(args.directory);
// Each Docwright process drains for up to its own shutdown timeout; the supervisor waits a little longer before killing.
const graceMs = (Number(process.env.DOCWRIGHT_SHUTDOWN_TIMEOUT_SECONDS ?? 30) + 15) * 1000;

let cluster: Cluster | null = null;
// Typed by assertion: the signal handlers set them, which narrowing from the initial values would not see.
let firstSignalAt = null as number | null;
let killed = false as boolean;
let requestStop: () => void = () => {};
const stopRequested = new Promise<void>((resolve) => (requestStop = resolve));

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(signal, () => {
    const now = Date.now();
    if (firstSignalAt === null) {
      firstSignalAt = now;
      // Still starting: the children that are up drain now, and the start fails and cleans up.
      if (cluster === null) signalManagedChildren('SIGTERM');
      requestStop();
      return;
    }
    if (now - firstSignalAt < SAME_SIGNAL_MS || killed) return;
    killed = true;
    output.say('killing every Docwright process (SIGKILL); PostgreSQL still stops cleanly');
    signalManagedChildren('SIGKILL');
  });
}

try {
  cluster = await startCluster({ api: args.api, workers: args.workers, port: args.port, proxy: args.proxy, directory, environment: process.env, output });
} catch (error) {
  output.say(`could not start: ${error instanceof Error ? error.message : String(error)}`);
  if (temporary) rmSync(directory, { recursive: true, force: true });
  process.exit(firstSignalAt === null ? 1 : 130);
}

if (firstSignalAt === null) {
  printSummary(cluster);
  void cluster.firstExit.then(({ name, exit }) => {
    if (firstSignalAt === null)
      output.say(`${name} exited (${exit.signal ?? `code ${String(exit.code)}`}) while the cluster runs; the others go on. Ctrl-C stops them.`);
  });
}
await stopRequested;
output.say('stopping: SIGTERM to every Docwright process, then PostgreSQL (Ctrl-C again to kill them at once)');
await cluster.stop(graceMs);
if (temporary) rmSync(directory, { recursive: true, force: true });
output.say(killed ? 'stopped (killed)' : 'stopped');
process.exit(killed ? 130 : 0);

function printSummary(running: Cluster): void {
  const lines = [
    `ready: PostgreSQL, ${running.apis.length} API process(es), ${running.workers.length} worker(s); data in ${running.directory}${temporary ? ' (removed on exit)' : ' (kept)'}`,
    ...(running.proxy === null ? [] : [`  proxy     ${running.proxy.url}  round-robin over the API processes: dashboard, API, reference at /docs`]),
    ...running.apis.map((api) => `  ${api.name.padEnd(9)} ${api.url}  pid ${api.pid}`),
    ...running.workers.map((worker) => `  ${worker.name.padEnd(9)} pid ${worker.pid}`),
    `  postgres  ${running.databaseUrl}${running.postgres === null ? '' : `  pid ${running.postgres.pid}`}`,
    '',
    'A first project and its API key (from another terminal, in this repository):',
    `  source ${running.environmentFile}`,
    '  npx docwright projects create --name Docs --repository PATH/TO/A/GIT/REPOSITORY --json',
    '  npx docwright keys create --project PROJECT_ID --json',
    `  curl -X POST ${running.publicUrl}/v2/agent/PROJECT_ID/job -H "Authorization: Bearer KEY" -H 'Content-Type: application/json' -d '{"prompt": "…"}'`,
    `Dashboard: ${running.publicUrl}/setup with the setup token printed in api-1's log, or \`npx docwright users create --email YOU --role admin\`.`,
    'Agent jobs need a model: start the cluster with ANTHROPIC_API_KEY, OPENAI_API_KEY or DOCWRIGHT_OPENAI_COMPATIBLE_BASE_URL set.',
    'Ctrl-C stops everything.',
  ];
  for (const line of lines) output.say(line);
}
