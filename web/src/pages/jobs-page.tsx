import { useEffect, useState } from 'preact/hooks';
import { useLocation, useRoute } from 'preact-iso';
import { jobsApi } from '../api/jobs-api';
import { JOB_STATUSES, type Job, type JobStatus, type Project } from '../api/types';
import { EmptyState } from '../components/empty-state';
import { ErrorMessage } from '../components/error-message';
import { JobRow } from '../components/job-row';
import { LiveIndicator } from '../components/live-indicator';
import { Loading } from '../components/loading';
import { NewJobForm } from '../components/new-job-form';
import { ProjectLayout } from '../components/project-layout';
import { useEventSource } from '../hooks/use-event-source';
import { useResource } from '../hooks/use-resource';

const PAGE_SIZE = 20;
const POLL_MS = 5_000;

export function JobsPage() {
  const { params } = useRoute();
  return (
    <ProjectLayout projectId={params.projectId ?? ''} tab="jobs" title="Agent jobs">
      {(project) => <JobsContent project={project} />}
    </ProjectLayout>
  );
}

function parseStatus(value: string | undefined): JobStatus | undefined {
  return JOB_STATUSES.find((status) => status === value);
}

function upsert(jobs: Job[], job: Job, status: JobStatus | undefined): Job[] {
  const index = jobs.findIndex((item) => item.id === job.id);
  if (index >= 0) {
    // A job that left the filtered status leaves the filtered list.
    if (status !== undefined && job.status !== status) return jobs.filter((item) => item.id !== job.id);
    const next = jobs.slice();
    next[index] = job;
    return next;
  }
  if (status !== undefined && job.status !== status) return jobs;
  return [job, ...jobs].sort((a, b) => b.createdAt.localeCompare(a.createdAt));
}

function JobsContent({ project }: { project: Project }) {
  const location = useLocation();
  const status = parseStatus(location.query.status);
  const [pages, setPages] = useState(1);
  const [fresh, setFresh] = useState<string | null>(null);
  const list = useResource((signal) => jobsApi.list(project.id, { status, limit: PAGE_SIZE * pages }, signal), `${project.id}:${status ?? ''}:${pages}`);

  const live = useEventSource(jobsApi.projectEventsUrl(project.id), {
    job: (event) => {
      const job = JSON.parse(event.data) as Job;
      list.setData((previous) => ({ jobs: upsert(previous?.jobs ?? [], job, status), hasMore: previous?.hasMore ?? false }));
    },
  });
  // Without the stream (an older server, a proxy that buffers), the list still moves.
  useEffect(() => {
    if (live !== 'unavailable') return undefined;
    const timer = setInterval(list.reload, POLL_MS);
    return () => clearInterval(timer);
  }, [live]);

  const setStatus = (value: string) => {
    setPages(1);
    location.route(value === '' ? location.path : `${location.path}?status=${value}`, true);
  };
  const jobs = list.data?.jobs ?? [];

  return (
    <div class="stack">
      <section class="card" aria-labelledby="new-job-heading">
        <h2 id="new-job-heading">Ask the agent</h2>
        <NewJobForm
          projectId={project.id}
          forge={project.forge}
          onCreated={(job) => {
            setFresh(job.id);
            list.setData((previous) => ({ jobs: upsert(previous?.jobs ?? [], job, status), hasMore: previous?.hasMore ?? false }));
          }}
        />
      </section>
      <section aria-labelledby="jobs-heading">
        <div class="section-header">
          <h2 id="jobs-heading">Jobs</h2>
          <LiveIndicator state={live} />
          <div class="section-tools">
            <label for="job-status-filter">Status</label>
            <select id="job-status-filter" value={status ?? ''} onChange={(event) => setStatus(event.currentTarget.value)}>
              <option value="">All</option>
              {JOB_STATUSES.map((value) => (
                <option key={value} value={value}>
                  {value}
                </option>
              ))}
            </select>
          </div>
        </div>
        {list.error && <ErrorMessage error={list.error} title="Could not load the jobs" onRetry={list.reload} />}
        {list.loading && !list.data && <Loading label="Loading jobs…" />}
        {list.data && jobs.length === 0 && (
          <EmptyState title={status ? `No ${status} jobs` : 'No jobs yet'}>
            <p>Describe a documentation change above; the agent edits the repository and opens a pull request.</p>
          </EmptyState>
        )}
        {jobs.length > 0 && (
          <ul class="job-list" aria-label="Jobs">
            {jobs.map((job) => (
              <JobRow key={job.id} projectId={project.id} job={job} highlight={job.id === fresh} />
            ))}
          </ul>
        )}
        {list.data?.hasMore && (
          <div class="list-more">
            <button type="button" class="btn" onClick={() => setPages(pages + 1)} disabled={list.loading}>
              {list.loading ? 'Loading…' : 'Show more jobs'}
            </button>
          </div>
        )}
      </section>
    </div>
  );
}
