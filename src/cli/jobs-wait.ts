import type { Job, JobsApi } from './jobs-api.js';
import { followJob, type FollowOptions } from './jobs-follow.js';
import { createProgressPrinter } from './jobs-progress.js';
import { printJson } from './output.js';

/** Exit codes of the waiting commands: also documented in their help and in docs/cli.md. */
export const EXIT_COMPLETED = 0;
export const EXIT_FAILED = 1;
export const EXIT_TIMED_OUT = 3;

export interface WaitOptions {
  api: JobsApi;
  job: Job;
  /** The first turn whose progress to show; earlier turns are history. */
  fromSequence: number;
  json: boolean;
  timeoutSeconds?: number;
  /** For tests: connection tuning of the follower. */
  follow?: Partial<Pick<FollowOptions, 'pollIntervalMs' | 'reconnectDelayMs' | 'idleTimeoutMs' | 'maxReconnects'>>;
}

const progressLine = (line: string): void => void process.stderr.write(`${line}\n`);

/**
 * The first turn that is still to run or running: where a wait starts showing progress.
 * When a follow-up finished before we looked, its turn is the last one.
 */
export async function firstPendingSequence(api: JobsApi, jobId: string): Promise<number> {
  const { messages } = await api.conversation(jobId);
  const pending = messages.find((turn) => turn.status === 'queued' || turn.status === 'running');
  return pending?.sequence ?? messages.at(-1)?.sequence ?? 1;
}

/**
 * Follows an active job with progress on stderr, then prints the outcome: the pull
 * request link, "no changes", or why it failed. Returns the exit code.
 */
export async function waitForJob(options: WaitOptions): Promise<number> {
  const { api, json } = options;
  let job = options.job;
  let filesChanged: ReadonlySet<string> | undefined;
  if (job.status === 'active') {
    const printer = createProgressPrinter(progressLine, options.fromSequence);
    const result = await followJob({
      api,
      jobId: job.id,
      onEvent: (event) => printer.handle(event),
      onNotice: (message) => progressLine(`  (${message})`),
      timeoutMs: options.timeoutSeconds === undefined ? undefined : options.timeoutSeconds * 1000,
      ...options.follow,
    });
    job = result.job;
    if (printer.sawTurnCompleted) filesChanged = printer.filesChanged;
    if (result.timedOut) {
      if (json) printJson(job);
      process.stderr.write(
        `docwright: job ${job.id} is still ${job.status} after ${options.timeoutSeconds} s; it keeps running. Follow it with: docwright jobs wait ${job.id}\n`,
      );
      return EXIT_TIMED_OUT;
    }
  }
  return reportOutcome(job, json, filesChanged);
}

function reportOutcome(job: Job, json: boolean, filesChanged: ReadonlySet<string> | undefined): number {
  if (json) printJson(job);
  if (job.status === 'failed') {
    process.stderr.write(`docwright: job ${job.id} failed: ${job.error ? `${job.error.message} (${job.error.code})` : 'no reason given'}\n`);
    return EXIT_FAILED;
  }
  if (job.status === 'archived') {
    process.stderr.write(`docwright: job ${job.id} was archived at ${job.archivedAt ?? 'an unknown time'}.\n`);
    return EXIT_FAILED;
  }
  if (job.status === 'active') {
    process.stderr.write(`docwright: job ${job.id} is still active.\n`);
    return EXIT_TIMED_OUT;
  }
  if (json) return EXIT_COMPLETED;
  if (job.prLink === null) {
    process.stdout.write(`Job ${job.id} completed with no changes, so there is no pull request.\n`);
  } else if (filesChanged?.size === 0) {
    process.stdout.write(`Job ${job.id} completed; this run changed no files, so the pull request is unchanged.\nPull request: ${job.prLink}\n`);
  } else {
    process.stdout.write(`Job ${job.id} completed.\nPull request: ${job.prLink}\n`);
  }
  return EXIT_COMPLETED;
}
