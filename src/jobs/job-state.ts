import type { JobStatus } from './job.js';

/**
 * The job state machine of decisions.md:
 *   active → completed | failed          (a run ends)
 *   completed | failed → active          (a follow-up message)
 *   active | completed | failed → archived (archiving an active job stops its run first)
 *   archived is final.
 */
const TRANSITIONS: Readonly<Record<JobStatus, readonly JobStatus[]>> = {
  active: ['completed', 'failed', 'archived'],
  completed: ['active', 'archived'],
  failed: ['active', 'archived'],
  archived: [],
};

export function canTransition(from: JobStatus, to: JobStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

export function acceptsMessages(status: JobStatus): boolean {
  return status !== 'archived';
}

/** Polling ends at these: interface.md's rule. */
export function isSettled(status: JobStatus): boolean {
  return status === 'completed' || status === 'archived' || status === 'failed';
}
