import { conflict, type DocwrightError } from '../core/errors.js';
import type { JobStatus } from './job.js';

/** What a new job is: its first turn is queued with it. */
export const NEW_JOB_STATUS: JobStatus = 'active';

/**
 * The job state machine of decisions.md, the one answer to "may this job move there":
 *   active → completed | failed            (its run ends: JobRunner's settle)
 *   active | completed | failed → active   (a follow-up message; an active job stays active, its turn queued behind)
 *   active | completed | failed → archived (archiving an active job stops its run first)
 *   archived is final.
 * A cancel is `active → failed` with `error.code` `cancelled` (cancel-job.ts); only an active job can be cancelled.
 * Every write of a job's status asks it first (JobService.create/message/archive/cancel, RunWrites.settle).
 */
const TRANSITIONS: Readonly<Record<JobStatus, readonly JobStatus[]>> = {
  active: ['active', 'completed', 'failed', 'archived'],
  completed: ['active', 'archived'],
  failed: ['active', 'archived'],
  archived: [],
};

export function canTransition(from: JobStatus, to: JobStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

export const illegalTransition = (jobId: string, from: JobStatus, to: JobStatus): DocwrightError =>
  conflict(`Job ${jobId} cannot go from ${from} to ${to}.`, 'illegal_job_transition');

/** Throws `illegal_job_transition` (409) unless the table allows the move. */
export function assertTransition(jobId: string, from: JobStatus, to: JobStatus): void {
  if (!canTransition(from, to)) throw illegalTransition(jobId, from, to);
}

/** A follow-up moves the job to active: every status but archived allows it. */
export function acceptsMessages(status: JobStatus): boolean {
  return canTransition(status, 'active');
}

/** Cancel stops a run: only an active job has one (or a queued turn), so any other status is a 409. */
export function canCancel(status: JobStatus): boolean {
  return status === 'active' && canTransition(status, 'failed');
}

/** Polling ends at these: interface.md's rule. */
export function isSettled(status: JobStatus): boolean {
  return status === 'completed' || status === 'archived' || status === 'failed';
}
