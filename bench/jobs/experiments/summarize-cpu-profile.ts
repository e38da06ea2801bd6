/**
 * Summarizes a V8 .cpuprofile (from --cpu-prof / DOCWRIGHT_BENCH_CPU_PROF): the functions
 * with the most self time and the most inclusive time, optionally within a time window.
 *
 *   node --import tsx bench/jobs/experiments/summarize-cpu-profile.ts FILE [--top N] [--from S] [--to S] [--timeline]
 *
 * --timeline prints how busy the process was in each second, to find the window of a load run.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: 'string', default: '40' }, from: { type: 'string' }, to: { type: 'string' }, timeline: { type: 'boolean', default: false } },
});
const file = positionals[0];
if (file === undefined) throw new Error('usage: summarize-cpu-profile.ts FILE [--top N] [--from S] [--to S] [--timeline]');
const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const parents = new Map<number, number>();
for (const node of profile.nodes) for (const child of node.children ?? []) parents.set(child, node.id);

const label = (node: ProfileNode): string => {
  const where = node.callFrame.url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*?\/(src|bench)\//, '$1/');
  return `${node.callFrame.functionName || '(anonymous)'} ${where}:${node.callFrame.lineNumber + 1}`;
};
const from = values.from === undefined ? -Infinity : Number(values.from) * 1e6;
const to = values.to === undefined ? Infinity : Number(values.to) * 1e6;
const self = new Map<string, number>();
const inclusive = new Map<string, number>();
const busyPerSecond: Array<{ busy: number; all: number }> = [];
let elapsed = 0;
let total = 0;
profile.samples.forEach((id, index) => {
  const delta = profile.timeDeltas[index] ?? 0;
  elapsed += delta;
  const node = nodes.get(id);
  if (node === undefined) return;
  const second = (busyPerSecond[Math.floor(elapsed / 1e6)] ??= { busy: 0, all: 0 });
  second.all += delta;
  if (node.callFrame.functionName !== '(idle)') second.busy += delta;
  if (elapsed < from || elapsed > to) return;
  total += delta;
  self.set(label(node), (self.get(label(node)) ?? 0) + delta);
  // Recursion would count a frame twice; each label counts once per sample.
  const seen = new Set<string>();
  for (let current: number | undefined = id; current !== undefined; current = parents.get(current)) {
    const ancestor = nodes.get(current);
    if (ancestor === undefined || seen.has(label(ancestor))) continue;
    seen.add(label(ancestor));
    inclusive.set(label(ancestor), (inclusive.get(label(ancestor)) ?? 0) + delta);
  }
});

if (values.timeline) {
  // Array.from visits the seconds without samples too (holes, which map would skip).
  console.log(
    Array.from(
      busyPerSecond,
      (second: { busy: number; all: number } | undefined, index) => `${index}s:${second ? Math.round((100 * second.busy) / second.all) : 0}%`,
    ).join(' '),
  );
}
const show = (title: string, times: Map<string, number>): void => {
  console.log(`== ${title} (of ${(total / 1e3).toFixed(0)} ms sampled)`);
  const top = [...times].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top));
  for (const [name, time] of top) console.log(`${(time / 1e3).toFixed(0).padStart(8)} ms ${((100 * time) / total).toFixed(1).padStart(5)}%  ${name}`);
};
show('self time', self);
show('inclusive time', inclusive);
