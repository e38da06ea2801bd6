/** Command-line arguments of `npm run bench` (bench/run.ts). */

export const SUITE_NAMES = ['analytics', 'import', 'jobs', 'docs', 'startup', 'verification', 'agent'] as const;
export type SuiteName = (typeof SUITE_NAMES)[number];

export const BACKEND_NAMES = ['sqlite', 'postgres', 'clickhouse'] as const;
export type BackendName = (typeof BACKEND_NAMES)[number];
/** Backends that hold a whole Docwright (jobs, projects); ClickHouse holds analytics only. */
export type DatabaseBackendName = Exclude<BackendName, 'clickhouse'>;
export const isDatabaseBackend = (backend: BackendName): backend is DatabaseBackendName => backend !== 'clickhouse';

export interface BenchArguments {
  /** In run order; all suites when none was named. */
  suites: SuiteName[];
  /** 1 = the full-size workloads; 0.1 for a quick run. */
  scale: number;
  backends: BackendName[];
  /** Writes the reports as JSON here too. */
  outFile: string | undefined;
  help: boolean;
}

export const BENCH_USAGE = `usage: npm run bench -- [SUITE…] [--scale N] [--backend sqlite|postgres|clickhouse|both|all] [--out FILE]

  SUITE        analytics, import, jobs, docs, startup, verification, agent (default: every suite that exists)
  --scale N    fraction of the full workloads, 0 < N ≤ 1 (default 1; 0.1 for a quick run)
  --backend B  database(s) for the server-side benchmarks (default all; clickhouse: analytics only)
  --out FILE   also write the reports as JSON to FILE
`;

export class BenchArgumentError extends Error {}

export function parseBenchArguments(argv: readonly string[]): BenchArguments {
  const result: BenchArguments = { suites: [], scale: 1, backends: [...BACKEND_NAMES], outFile: undefined, help: false };
  for (let index = 0; index < argv.length; index++) {
    const argument = argv[index] ?? '';
    const [flag, inline] = argument.startsWith('--') && argument.includes('=') ? splitOnce(argument) : [argument, undefined];
    const value = (): string => {
      const next = inline ?? argv[++index];
      if (next === undefined || next === '') throw new BenchArgumentError(`${flag} needs a value`);
      return next;
    };
    switch (flag) {
      case '--help':
      case '-h':
        result.help = true;
        break;
      case '--scale':
        result.scale = parseScale(value());
        break;
      case '--backend':
        result.backends = parseBackends(value());
        break;
      case '--out':
        result.outFile = value();
        break;
      default:
        if (flag.startsWith('-')) throw new BenchArgumentError(`unknown option ${flag}`);
        if (!(SUITE_NAMES as readonly string[]).includes(flag)) {
          throw new BenchArgumentError(`unknown suite "${flag}"; expected ${SUITE_NAMES.join(', ')}`);
        }
        if (!result.suites.includes(flag as SuiteName)) result.suites.push(flag as SuiteName);
    }
  }
  if (result.suites.length === 0) result.suites = [...SUITE_NAMES];
  return result;
}

function splitOnce(argument: string): [string, string] {
  const at = argument.indexOf('=');
  return [argument.slice(0, at), argument.slice(at + 1)];
}

function parseScale(text: string): number {
  const scale = Number(text);
  if (!(Number.isFinite(scale) && scale > 0 && scale <= 1)) throw new BenchArgumentError(`--scale must be a number with 0 < N ≤ 1 (got "${text}")`);
  return scale;
}

function parseBackends(text: string): BackendName[] {
  if (text === 'both') return ['sqlite', 'postgres'];
  if (text === 'all') return [...BACKEND_NAMES];
  if ((BACKEND_NAMES as readonly string[]).includes(text)) return [text as BackendName];
  throw new BenchArgumentError(`--backend must be sqlite, postgres, clickhouse, both (sqlite and postgres) or all (got "${text}")`);
}
