import { readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../app/logger.js';
import type { JobQueue } from '../queue/job-queue.js';

/** How often a worker process looks for orphaned workspaces (and once at start). */
export const SWEEP_INTERVAL_MS = 10 * 60_000;
/** Removals at once: each is many small fs calls on libuv's pool, which argon2 and git share. */
const REMOVALS_AT_ONCE = 2;
/** `<jobId>-<turn>-<random>` (execute-turn.ts); anything else in the directory is not ours to remove. */
const WORKSPACE_NAME = /^([0-9A-Za-z]{22})-\d+-[0-9A-Za-z]{6}$/;

export interface WorkspaceSweepOptions {
  /** `<data dir>/workspaces`. */
  workspacesDir: string;
  queue: JobQueue;
  clock: Clock;
  /** The job lease: a lease that lapsed less than this long ago still protects its workspace. */
  leaseMs: number;
  /** Jobs this process runs now: protected whatever the store says (a renewal may be failing). */
  localJobIds: () => Iterable<string>;
  logger: Logger;
}

export interface SweepResult {
  removed: string[];
  kept: number;
  failed: number;
}

/**
 * Removes the job workspaces no live lease owns: clones a killed worker left behind. A
 * run's workspace is created after its claim and removed by its own worker when the turn
 * ends, so one whose job holds no lease (in any process sharing the data dir) has no run.
 * The directory is listed *before* the leases are read, so a workspace created meanwhile is
 * not even seen; and names carry a random part, so a later run of the same job never
 * reuses a directory this sweep decided to remove.
 */
export async function sweepWorkspaces(options: WorkspaceSweepOptions): Promise<SweepResult> {
  let entries: string[];
  try {
    entries = await readdir(options.workspacesDir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { removed: [], kept: 0, failed: 0 };
    throw error;
  }
  const candidates = entries.flatMap((entry) => {
    const match = WORKSPACE_NAME.exec(entry);
    return match ? [{ entry, jobId: match[1]! }] : [];
  });
  if (candidates.length === 0) return { removed: [], kept: 0, failed: 0 };
  const leased = await options.queue.leasedJobIds(options.clock.now() - options.leaseMs);
  for (const jobId of options.localJobIds()) leased.add(jobId);
  const orphans = candidates.filter((candidate) => !leased.has(candidate.jobId));
  const removed: string[] = [];
  let failed = 0;
  let next = 0;
  const removeNext = async (): Promise<void> => {
    while (next < orphans.length) {
      const { entry } = orphans[next++]!;
      try {
        await rm(join(options.workspacesDir, entry), { recursive: true, force: true });
        removed.push(entry);
      } catch (error) {
        failed += 1;
        options.logger.warn({ err: error, workspace: entry }, 'could not remove an orphaned job workspace; the next sweep tries again');
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(REMOVALS_AT_ONCE, orphans.length) }, removeNext));
  return { removed, kept: candidates.length - orphans.length, failed };
}

export interface WorkspaceSweeper {
  /** Stops the timer and waits for a sweep in progress. */
  stop(): Promise<void>;
}

/** Sweeps at once (in the background: start-up does not wait) and then every `intervalMs`. */
export function startWorkspaceSweeper(options: WorkspaceSweepOptions & { intervalMs?: number }): WorkspaceSweeper {
  let running: Promise<void> = Promise.resolve();
  let stopped = false;
  const sweep = () => {
    if (stopped) return;
    running = running.then(async () => {
      if (stopped) return;
      try {
        const result = await sweepWorkspaces(options);
        if (result.removed.length > 0)
          options.logger.info({ removed: result.removed.length, kept: result.kept }, 'removed job workspaces that no live lease owns');
      } catch (error) {
        options.logger.warn({ err: error }, 'workspace sweep failed; the next one tries again');
      }
    });
  };
  sweep();
  const timer = setInterval(sweep, options.intervalMs ?? SWEEP_INTERVAL_MS);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
