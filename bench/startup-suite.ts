/**
 * The `startup` suite: how long a Docwright process takes to become useful, compiled
 * (bin/docwright.js: dist/ with plain node) against the same sources run through tsx the
 * way bin/docwright.js did before the build existed (bench/lib/tsx-cli.mjs), measured in
 * the same run and interleaved so a change in the machine's load hits both alike:
 *   - `docwright serve` from spawn until it logs that it listens (SQLite, migrated data dir);
 *   - `docwright --help`, and `docwright projects list --json` (opens the database), until exit;
 *   - the CPU time (all threads) and resident memory of `serve` once it listens: steadier
 *     than wall clock on a loaded machine.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchOptions } from './lib/bench-options.js';
import { summarize } from './lib/percentiles.js';
import { metric, type SuiteReport } from './lib/suite-report.js';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const LAUNCHERS = {
  compiled: join(ROOT, 'bin', 'docwright.js'),
  tsx: fileURLToPath(new URL('./lib/tsx-cli.mjs', import.meta.url)),
} as const;
type Launcher = keyof typeof LAUNCHERS;

const FULL_ITERATIONS = 20;
/**
 * Compiled must take at most this share of tsx's time. serve spends most of its start-up
 * loading node_modules (fastify, the AI SDK, zod…), which both launchers load alike.
 */
const SERVE_RATIO_LIMIT = 0.8;
const COMMAND_RATIO_LIMIT = 0.6;

interface Run {
  milliseconds: number;
  /** Resident set size in MiB when `serve` listened (Linux), else undefined. */
  rssMiB?: number;
  /** CPU time (user + system, all threads) in ms when `serve` listened (Linux), else undefined. */
  cpuMs?: number;
}

export async function runStartupBenchmarks(options: BenchOptions): Promise<SuiteReport> {
  execFileSync(process.execPath, [join(ROOT, 'scripts', 'build-server.mjs'), '--if-stale', '--quiet'], { cwd: ROOT, stdio: 'inherit' });
  const iterations = Math.max(5, Math.round(FULL_ITERATIONS * options.scale));
  const dataDir = mkdtempSync(join(options.dataDir, 'startup-'));
  const environment = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    DOCWRIGHT_DATA_DIR: dataDir,
    DOCWRIGHT_SECRET: 'bench-secret-bench-secret-bench-secret-0123456789',
    PORT: '0',
    HOST: '127.0.0.1',
  };
  try {
    const cases: Array<{ name: string; run: (launcher: Launcher) => Promise<Run>; limit: number }> = [
      { name: 'serve: spawn → listening', run: (launcher) => timeServe(launcher, environment), limit: SERVE_RATIO_LIMIT },
      { name: 'docwright --help', run: (launcher) => timeCommand(launcher, ['--help'], environment), limit: COMMAND_RATIO_LIMIT },
      {
        name: 'docwright projects list --json',
        run: (launcher) => timeCommand(launcher, ['projects', 'list', '--json'], environment),
        limit: COMMAND_RATIO_LIMIT,
      },
    ];
    // The first start migrates the data dir, and fills tsx's transform cache: neither is measured.
    for (const item of cases) for (const launcher of ['compiled', 'tsx'] as const) await item.run(launcher);
    const report: SuiteReport = {
      suite: 'startup',
      title: 'start-up: compiled build (plain node) against the sources through tsx',
      context: [
        `compiled: node bin/docwright.js (dist/, esbuild bundle; source maps for its own files on Node ≥ 22.14); tsx: node bench/lib/tsx-cli.mjs (tsx's register() then src/cli/main.ts, as bin/docwright.js ran before the build)`,
        `${iterations} runs of each, compiled and tsx alternating (which goes first alternates too); medians; SQLite data dir migrated beforehand; tsx's cache warm`,
      ],
      metrics: [],
      notes: [],
    };
    const serveMemory: Record<Launcher, number[]> = { compiled: [], tsx: [] };
    const serveCpu: Record<Launcher, number[]> = { compiled: [], tsx: [] };
    for (const item of cases) {
      options.log(`startup: ${item.name}`);
      const samples: Record<Launcher, number[]> = { compiled: [], tsx: [] };
      for (let index = 0; index < iterations; index++) {
        const order: Launcher[] = index % 2 === 0 ? ['compiled', 'tsx'] : ['tsx', 'compiled'];
        for (const launcher of order) {
          const result = await item.run(launcher);
          samples[launcher].push(result.milliseconds);
          if (result.rssMiB !== undefined) serveMemory[launcher].push(result.rssMiB);
          if (result.cpuMs !== undefined) serveCpu[launcher].push(result.cpuMs);
        }
      }
      report.metrics.push(
        metric({
          name: item.name,
          value: summarize(samples.compiled).p50,
          unit: 'ms',
          baseline: { name: 'tsx', value: summarize(samples.tsx).p50 },
          target: { of: 'ratio', comparison: 'at-most', limit: item.limit },
          note: `p95 compiled ${summarize(samples.compiled).p95.toFixed(0)} ms, tsx ${summarize(samples.tsx).p95.toFixed(0)} ms`,
        }),
      );
    }
    if (serveCpu.compiled.length > 0 && serveCpu.tsx.length > 0) {
      report.metrics.push(
        metric({
          name: 'serve: CPU time until listening',
          value: summarize(serveCpu.compiled).p50,
          unit: 'ms',
          baseline: { name: 'tsx', value: summarize(serveCpu.tsx).p50 },
        }),
      );
    }
    if (serveMemory.compiled.length > 0 && serveMemory.tsx.length > 0) {
      report.metrics.push(
        metric({
          name: 'serve: resident memory when listening',
          value: summarize(serveMemory.compiled).p50,
          unit: 'MiB',
          baseline: { name: 'tsx', value: summarize(serveMemory.tsx).p50 },
        }),
      );
    }
    return report;
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function command(launcher: Launcher, args: string[]): string[] {
  return [LAUNCHERS[launcher], ...args];
}

/** Milliseconds from spawn until the process exited 0. */
function timeCommand(launcher: Launcher, args: string[], environment: Record<string, string>): Promise<Run> {
  return new Promise((resolve, reject) => {
    const startedAt = performance.now();
    const child = spawn(process.execPath, command(launcher, args), { env: environment, stdio: ['ignore', 'ignore', 'pipe'] });
    let errors = '';
    child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      const milliseconds = performance.now() - startedAt;
      if (code === 0) resolve({ milliseconds });
      else reject(new Error(`docwright ${args.join(' ')} (${launcher}) exited ${String(code)}: ${errors}`));
    });
  });
}

/** Milliseconds from spawn until `serve` logged its URL; then it is stopped with SIGTERM. */
function timeServe(launcher: Launcher, environment: Record<string, string>): Promise<Run> {
  return new Promise((resolve, reject) => {
    const startedAt = performance.now();
    const child = spawn(process.execPath, command(launcher, ['serve']), { env: environment, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let listened: Run | undefined;
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (listened !== undefined || !output.includes('"url":"http')) return;
      listened = { milliseconds: performance.now() - startedAt };
      Object.assign(listened, processFigures(child.pid));
      child.kill('SIGTERM');
    });
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', () => {
      clearTimeout(timer);
      if (listened !== undefined) resolve(listened);
      else reject(new Error(`serve (${launcher}) exited before listening: ${output}`));
    });
  });
}

/** Resident memory and CPU time so far of a running process, from /proc (Linux only; nothing elsewhere). */
function processFigures(pid: number | undefined): Pick<Run, 'rssMiB' | 'cpuMs'> {
  if (pid === undefined) return {};
  try {
    const status = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    // Fields 14 and 15 of /proc/PID/stat (utime, stime) are clock ticks, 100 a second on Linux;
    // the command name before them is in parentheses and may hold spaces.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    const ticks = Number(fields[11]) + Number(fields[12]);
    return { ...(status ? { rssMiB: Number(status[1]) / 1024 } : {}), ...(Number.isFinite(ticks) ? { cpuMs: ticks * 10 } : {}) };
  } catch {
    return {};
  }
}
