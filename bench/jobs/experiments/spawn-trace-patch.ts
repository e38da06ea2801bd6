/**
 * Experiment, loaded into the server with `--import`: times every child process the server
 * starts — the synchronous spawn() call, which blocks the event loop while the kernel forks
 * a large process, and the child's whole life — and prints medians per command at exit.
 */
import childProcess, { type ChildProcess } from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';

interface Sample {
  command: string;
  spawnMilliseconds: number;
  lifeMilliseconds: number;
}

const samples: Sample[] = [];
const original = childProcess.spawn as (...args: unknown[]) => ChildProcess;

(childProcess as unknown as { spawn: (...args: unknown[]) => ChildProcess }).spawn = function tracedSpawn(this: unknown, ...args: unknown[]): ChildProcess {
  const startedAt = performance.now();
  const child = original.apply(this, args);
  const spawnMilliseconds = performance.now() - startedAt;
  const argumentsList = Array.isArray(args[1]) ? (args[1] as string[]) : [];
  const command = `${String(args[0])} ${argumentsList.find((argument) => !argument.startsWith('-')) ?? ''}`.trim();
  child.once('close', () => samples.push({ command, spawnMilliseconds, lifeMilliseconds: performance.now() - startedAt }));
  return child;
};
// ESM importers of node:child_process see the replaced function only after this.
syncBuiltinESMExports();

const median = (values: number[]): string => ([...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN).toFixed(1);

process.on('exit', () => {
  const commands = new Set(samples.map((sample) => sample.command));
  for (const command of commands) {
    const mine = samples.filter((sample) => sample.command === command);
    process.stderr.write(
      `spawn ${command.padEnd(16)} ×${mine.length}: spawn() blocked the event loop ${median(mine.map((sample) => sample.spawnMilliseconds))} ms, process lived ${median(mine.map((sample) => sample.lifeMilliseconds))} ms (medians)\n`,
    );
  }
  process.stderr.write(`server resident memory at exit: ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB\n`);
});
