import type { JobStatus, PullRequestStatus } from '../api/types';

const LABELS: Record<JobStatus | PullRequestStatus, string> = {
  active: 'Active',
  completed: 'Completed',
  failed: 'Failed',
  archived: 'Archived',
  open: 'Open',
  merged: 'Merged',
  closed: 'Closed',
};

/** Status as text and colour (never colour alone); active ones pulse to show work in progress. */
export function StatusBadge({ status, kind = 'job' }: { status: JobStatus | PullRequestStatus; kind?: 'job' | 'pr' }) {
  return (
    <span class={`badge badge-${status}`} data-status={status}>
      {status === 'active' && <span class="badge-pulse" aria-hidden="true" />}
      {kind === 'pr' ? `PR ${LABELS[status].toLowerCase()}` : LABELS[status]}
    </span>
  );
}
