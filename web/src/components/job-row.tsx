import { useEffect, useState } from 'preact/hooks';
import { firstPrompt, pullRequestHref } from '../api/jobs-api';
import type { Job } from '../api/types';
import { StatusBadge } from './status-badge';
import { RelativeTime } from './relative-time';

/** One job in the list: status, its first prompt, the pull request, and when it last changed. */
export function JobRow({ projectId, job, highlight }: { projectId: string; job: Job; highlight: boolean }) {
  const [prompt, setPrompt] = useState<string | null>(null);
  useEffect(() => {
    let cancelled = false;
    firstPrompt(projectId, job.id).then(
      (text) => !cancelled && setPrompt(text),
      () => !cancelled && setPrompt(null),
    );
    return () => {
      cancelled = true;
    };
  }, [projectId, job.id]);
  const href = `/projects/${encodeURIComponent(projectId)}/jobs/${encodeURIComponent(job.id)}`;
  const pr = job.prLink ? pullRequestHref(job.prLink) : null;
  return (
    <li class={`job-row${highlight ? ' job-row-new' : ''}`} data-job-id={job.id}>
      <div class="job-row-status">
        <StatusBadge status={job.status} />
      </div>
      <div class="job-row-main">
        <a href={href} class="job-row-title">
          {prompt ?? <span class="muted">Job {job.id}</span>}
        </a>
        <p class="job-row-meta muted small">
          <code>{job.id}</code> · {job.model} · updated <RelativeTime iso={job.updatedAt} />
          {job.error && (
            <>
              {' '}
              · <code class="error-code">{job.error.code}</code>
            </>
          )}
        </p>
      </div>
      <div class="job-row-pr">
        {pr ? (
          <a href={pr.href} class="pr-link" {...(pr.local ? {} : { target: '_blank', rel: 'noopener noreferrer' })}>
            Pull request{job.prStatus ? ` (${job.prStatus})` : ''}
          </a>
        ) : (
          <span class="muted small">{job.status === 'active' ? 'Working…' : 'No pull request'}</span>
        )}
      </div>
    </li>
  );
}
