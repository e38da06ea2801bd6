import { join } from 'node:path';
import { percentile } from '../lib/percentiles.js';
import { describeOutcome, eventTime, type JobClient, type SettledJob } from './job-client.js';
import type { GeneratedDocsRepository } from './generate-docs-repository.js';
import { timeRawGitChange, type GitTiming } from './git-baseline.js';
import { processCpuMilliseconds } from './process-cpu.js';
import type { TimedFakeModel } from './timed-fake-model.js';

export interface OverheadPhases {
  /** create sent → turn.started: the queue pickup. */
  pickup: number;
  /** turn.started → first model request: reading the job, ls-remote, clone, checkout. */
  prepare: number;
  /** first → last model request: the edit_file tool and the step event. */
  agent: number;
  /** last model request → turn.completed: check_docs, status, add, commit, push, pull request, rm. */
  finish: number;
  /** turn.completed → the client saw job.completed: settling and the event stream. */
  settle: number;
}

export interface OverheadResult {
  runs: number;
  /** create sent → job.completed seen by the client, ms per run. */
  jobMilliseconds: number[];
  /** CPU of the server process and its git children per job, ms. */
  jobCpuMilliseconds: number[];
  git: GitTiming[];
  /** Median of each phase over the runs, ms. */
  phases: OverheadPhases;
  prLink: string | null;
  /** Jobs whose event stream ended without their job.completed event (timed by the stream's end). */
  missedSettlingEvents: number;
  /** The last measured job: completed, with a pull request; the poll benchmark reads it. */
  lastJobId: string;
  /** The unmeasured first job, create → job.completed, ms: it is the one that indexes the base commit for the docs check. */
  warmUpMilliseconds: number;
}

export interface OverheadOptions {
  client: JobClient;
  model: TimedFakeModel;
  /** The server's process id, for its CPU time. */
  serverPid: number;
  repository: GeneratedDocsRepository;
  runs: number;
  scratchDirectory: string;
  log: (message: string) => void;
}

const median = (values: number[]): number => percentile(values, 50);

/**
 * Creates jobs whose zero-latency model edits one page of the generated repository (one
 * edit_file call, then a final answer), each timed from the create request to the
 * job.completed event, alternating with the same change made by the raw git CLI so both
 * sides see the same machine state. One unmeasured warm-up of each comes first.
 */
export async function measureJobOverhead(options: OverheadOptions): Promise<OverheadResult> {
  const { client, model, repository } = options;
  const jobMilliseconds: number[] = [];
  const jobCpuMilliseconds: number[] = [];
  const git: GitTiming[] = [];
  const phases: Record<keyof OverheadPhases, number[]> = { pickup: [], prepare: [], agent: [], finish: [], settle: [] };
  let prLink: string | null = null;
  let lastJobId = '';
  let missedSettlingEvents = 0;
  let warmUpMilliseconds = Number.NaN;
  for (let index = -1; index < options.runs; index++) {
    const measured = index >= 0;
    const gitTiming = await timeRawGitChange({
      remote: repository.directory,
      page: repository.editedPage,
      oldText: repository.editedLine,
      newText: repository.replacementLine,
      branch: `bench/raw-${index + 1}`,
      directory: join(options.scratchDirectory, 'raw-git-clone'),
    });
    const tag = `overhead-${index + 1}`;
    model.expect(tag, (request) =>
      request.toolRounds === 0
        ? {
            toolCalls: [
              { name: 'edit_file', arguments: { path: repository.editedPage, oldString: repository.editedLine, newString: repository.replacementLine } },
            ],
          }
        : { text: `Reworded the opening line of ${repository.editedPage}.` },
    );
    const cpuBefore = processCpuMilliseconds(options.serverPid);
    const created = await client.create(`[bench:${tag}] Reword the opening line of ${repository.editedPage}.`);
    // The first job on the commit indexes the whole base for the docs check: minutes on 25,000 pages.
    const settled = await client.waitForSettled(created.id, measured ? 120_000 : 900_000);
    const cpu = processCpuMilliseconds(options.serverPid) - cpuBefore;
    if (settled.status !== 'completed' || settled.prLink === null) throw new Error(`overhead job ${created.id} ended ${describeOutcome(settled)}`);
    const arrivals = model.arrivals(tag);
    model.forget(tag);
    if (!measured) {
      warmUpMilliseconds = settled.settledAt - created.sentAt;
      continue;
    }
    git.push(gitTiming);
    jobMilliseconds.push(settled.settledAt - created.sentAt);
    jobCpuMilliseconds.push(cpu);
    prLink = settled.prLink;
    lastJobId = created.id;
    if (settled.missedSettlingEvent) missedSettlingEvents++;
    const sample = phasesOf(created.sentAt, arrivals, settled);
    for (const key of Object.keys(phases) as Array<keyof OverheadPhases>) phases[key].push(sample[key]);
    options.log(
      `jobs: overhead run ${index + 1}/${options.runs}: job ${(settled.settledAt - created.sentAt).toFixed(0)} ms, raw git ${gitTiming.milliseconds.toFixed(0)} ms`,
    );
  }
  return {
    runs: options.runs,
    jobMilliseconds,
    jobCpuMilliseconds,
    git,
    phases: {
      pickup: median(phases.pickup),
      prepare: median(phases.prepare),
      agent: median(phases.agent),
      finish: median(phases.finish),
      settle: median(phases.settle),
    },
    prLink,
    lastJobId,
    missedSettlingEvents,
    warmUpMilliseconds,
  };
}

function phasesOf(sentAt: number, arrivals: number[], settled: SettledJob): OverheadPhases {
  const started = eventTime(settled.events, 'turn.started');
  const completed = eventTime(settled.events, 'turn.completed');
  const first = arrivals[0] ?? Number.NaN;
  const last = arrivals.at(-1) ?? Number.NaN;
  return { pickup: started - sentAt, prepare: first - started, agent: last - first, finish: completed - last, settle: settled.settledAt - completed };
}
