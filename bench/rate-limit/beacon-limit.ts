/**
 * `node --import tsx bench/rate-limit/beacon-limit.ts [--requests N] [--concurrency C] [--backend sqlite|postgres|both]`
 *
 * What the shared beacon rate limit costs: a real server in a child process takes page
 * beacons from 5,000 client addresses (X-Forwarded-For behind one trusted proxy), with the
 * limit off (DOCWRIGHT_BEACON_RATE_LIMIT=0: what an in-process counter costs, give or take
 * a map lookup) and on (120 per minute, counted in the database). Each setting runs twice,
 * alternating, on a fresh database; reported: requests per second, latency and the
 * server's CPU time per request.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBenchServer } from '../lib/docwright-server.js';
import { startBenchPostgres, type BenchPostgres } from '../lib/embedded-postgres.js';
import { describeMachine, formatMachine } from '../lib/machine.js';
import { percentile } from '../lib/percentiles.js';

const ORIGIN = 'https://docs.example.com';
const ADDRESSES = 5_000;
const BODY = Buffer.from(JSON.stringify({ path: '/docs/start', referrer: 'https://www.google.com/' }));

function option(name: string, fallback: string): string {
  const index = process.argv.indexOf(`--${name}`);
  return index === -1 ? fallback : (process.argv[index + 1] ?? fallback);
}

function beacon(agent: Agent, url: URL, address: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          origin: ORIGIN,
          'content-type': 'text/plain',
          'content-length': String(BODY.length),
          'user-agent': 'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0',
          'x-forwarded-for': address,
        },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    outgoing.on('error', reject);
    outgoing.end(BODY);
  });
}

/** Sends `count` beacons over `concurrency` keep-alive connections; latencies in ms. */
async function load(target: string, count: number, concurrency: number, offset: number): Promise<{ seconds: number; latencies: number[] }> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const url = new URL(target);
  const latencies: number[] = [];
  let next = 0;
  const client = async (): Promise<void> => {
    while (next < count) {
      const index = offset + next++;
      const address = `10.${(index % ADDRESSES) >> 8}.${index % 256}.${1 + ((index >> 16) % 250)}`;
      const sentAt = performance.now();
      const status = await beacon(agent, url, address);
      latencies.push(performance.now() - sentAt);
      if (status !== 204) throw new Error(`beacon answered ${status}`);
    }
  };
  const startedAt = performance.now();
  try {
    await Promise.all(Array.from({ length: concurrency }, client));
  } finally {
    agent.destroy();
  }
  return { seconds: (performance.now() - startedAt) / 1000, latencies };
}

async function main(): Promise<void> {
  const requests = Number(option('requests', '20000'));
  const concurrency = Number(option('concurrency', '16'));
  const backends = option('backend', 'both');
  process.stdout.write(
    `page beacon, ${requests} beacons per run from ${ADDRESSES} addresses, ${concurrency} connections; ${formatMachine(describeMachine())}\n\n`,
  );
  process.stdout.write('| backend | beacon rate limit | beacons/s | p50 / p95 latency | server CPU per beacon | load average |\n|---|---|---|---|---|---|\n');
  let postgres: BenchPostgres | undefined;
  let databases = 0;
  try {
    for (const backend of ['sqlite', 'postgres'] as const) {
      if (backends !== 'both' && backends !== backend) continue;
      if (backend === 'postgres') postgres = await startBenchPostgres();
      for (const limit of ['0', '120', '0', '120']) {
        const dataDir = mkdtempSync(join(tmpdir(), 'docwright-bench-beacon-'));
        const server = await startBenchServer({
          dataDir,
          ...(postgres === undefined ? {} : { databaseUrl: await postgres.createDatabase(`bench_beacon_${databases++}`) }),
          environment: { DOCWRIGHT_BEACON_RATE_LIMIT: limit, DOCWRIGHT_TRUST_PROXY: '1', BENCH_PROJECT_SETTINGS: JSON.stringify({ allowedOrigins: [ORIGIN] }) },
        });
        try {
          const target = `${server.url}/v1/analytics/${server.projectId}/collect`;
          await load(target, Math.min(2_000, requests), concurrency, 0);
          const cpuBefore = await server.cpuSeconds();
          const run = await load(target, requests, concurrency, 2_000);
          const cpu = (await server.cpuSeconds()) - cpuBefore;
          const label = limit === '0' ? 'off (0)' : `shared, ${limit}/min`;
          process.stdout.write(
            `| ${backend} | ${label} | ${Math.round(requests / run.seconds).toLocaleString('en')} | ${percentile(run.latencies, 50).toFixed(1)} / ${percentile(run.latencies, 95).toFixed(1)} ms | ${Math.round((cpu / requests) * 1e6)} µs | ${loadavg()[0]!.toFixed(2)} |\n`,
          );
        } finally {
          await server.stop();
          rmSync(dataDir, { recursive: true, force: true });
        }
      }
    }
  } finally {
    await postgres?.stop();
  }
}

await main();
