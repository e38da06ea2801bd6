import { useEffect, useRef, useState } from 'preact/hooks';
import { useRoute } from 'preact-iso';
import { jobsApi, pullRequestHref } from '../api/jobs-api';
import { useSession } from '../api/session-store';
import type { Job, Project, Turn } from '../api/types';
import { ConfirmDialog } from '../components/confirm-dialog';
import { ErrorMessage } from '../components/error-message';
import { Field } from '../components/field';
import { LiveIndicator } from '../components/live-indicator';
import { Loading } from '../components/loading';
import { ProjectLayout } from '../components/project-layout';
import { StatusBadge } from '../components/status-badge';
import { notify } from '../components/toast';
import { TurnView } from '../components/turn-view';
import { useEventSource } from '../hooks/use-event-source';
import { useResource } from '../hooks/use-resource';
import { formatDateTime } from '../lib/format';
import { useSubmission } from '../hooks/use-submission';

const SETTLING_EVENTS = ['job.completed', 'job.failed', 'job.archived'];
const PROGRESS_EVENTS = [
  'job.created',
  'turn.queued',
  'turn.started',
  'step',
  'turn.retrying',
  'turn.completed',
  'turn.failed',
  'turn.cancelled',
  'pull_request',
  ...SETTLING_EVENTS,
];

export default function JobPage() {
  const { params } = useRoute();
  return (
    <ProjectLayout projectId={params.projectId ?? ''} tab="jobs" title="Job" ownHeading>
      {(project) => <JobContent key={params.jobId} project={project} jobId={params.jobId ?? ''} />}
    </ProjectLayout>
  );
}

interface Conversation {
  job: Job;
  turns: Turn[];
}

async function loadConversation(projectId: string, jobId: string, signal?: AbortSignal): Promise<Conversation> {
  const [job, turns] = await Promise.all([jobsApi.get(projectId, jobId, signal), jobsApi.messages(projectId, jobId, signal)]);
  return { job, turns };
}

function JobContent({ project, jobId }: { project: Project; jobId: string }) {
  const session = useSession();
  const author = session.status === 'ready' && session.user ? session.user.email : 'You';
  const conversation = useResource((signal) => loadConversation(project.id, jobId, signal), `${project.id}:${jobId}`);
  const job = conversation.data?.job;
  const [archiving, setArchiving] = useState(false);
  // The job stream ends when the job settles; a follow-up re-activates it and reopens the stream.
  const streaming = job?.status === 'active';
  const refresh = useThrottledRefresh(async () => {
    try {
      conversation.setData(await loadConversation(project.id, jobId));
    } catch {
      // The next event or the fallback poll tries again; the page keeps what it has.
    }
  });
  const listeners: Record<string, () => void> = {};
  for (const name of PROGRESS_EVENTS) listeners[name] = refresh;
  const live = useEventSource(streaming ? jobsApi.jobEventsUrl(project.id, jobId) : null, listeners);
  useEffect(() => {
    if (!streaming || live !== 'unavailable') return undefined;
    const timer = setInterval(refresh, 3_000);
    return () => clearInterval(timer);
  }, [streaming, live]);

  if (!conversation.data) {
    if (conversation.error)
      return (
        <ErrorMessage
          error={conversation.error}
          title={conversation.error.status === 404 ? 'No such job' : 'Could not load the job'}
          onRetry={conversation.reload}
        />
      );
    return <Loading label="Loading the job…" />;
  }
  const { turns } = conversation.data;
  const current = conversation.data.job;
  const pr = current.prLink ? pullRequestHref(current.prLink) : null;

  return (
    <div class="job-page">
      <div class="job-header">
        <p class="breadcrumb-sub">
          <a href={`/projects/${encodeURIComponent(project.id)}/jobs`}>← All jobs</a>
        </p>
        <h1 class="job-title">{turns[0]?.prompt.split('\n')[0]?.slice(0, 140) ?? `Job ${current.id}`}</h1>
        <div class="job-meta">
          <StatusBadge status={current.status} />
          {current.prStatus && <StatusBadge status={current.prStatus} kind="pr" />}
          <span class="muted small">
            <code>{current.id}</code> · {current.model} · <code>{current.source.ref}</code> · started {formatDateTime(current.createdAt)}
          </span>
          {streaming && <LiveIndicator state={live} />}
        </div>
        <div class="job-actions">
          {pr && (
            <a class="btn btn-primary" href={pr.href} {...(pr.local ? {} : { target: '_blank', rel: 'noopener noreferrer' })}>
              View pull request
            </a>
          )}
          {current.status !== 'archived' && (
            <button type="button" class="btn" onClick={() => setArchiving(true)}>
              Archive
            </button>
          )}
        </div>
      </div>
      {current.status === 'failed' && current.error && (
        <div class="alert alert-error" role="alert">
          <p class="alert-title">
            The job failed <code class="error-code">{current.error.code}</code>
          </p>
          <p>{current.error.message}</p>
        </div>
      )}
      <ol class="conversation" aria-label="Conversation">
        {turns.map((turn) => (
          <TurnView key={turn.sequence} turn={turn} author={author} />
        ))}
      </ol>
      {current.status === 'archived' ? (
        <p class="muted">This job is archived{current.archivedAt ? ` (${formatDateTime(current.archivedAt)})` : ''}; it takes no more instructions.</p>
      ) : (
        <FollowUpForm
          projectId={project.id}
          job={current}
          onSent={(updated) => {
            conversation.setData((previous) => ({ job: updated, turns: previous?.turns ?? [] }));
            refresh();
          }}
        />
      )}
      <ConfirmDialog
        open={archiving}
        title="Archive this job?"
        confirmLabel="Archive job"
        onClose={() => setArchiving(false)}
        onConfirm={async () => {
          const updated = await jobsApi.archive(project.id, current.id);
          conversation.setData((previous) => ({ job: updated, turns: previous?.turns ?? [] }));
          notify('Job archived.');
          refresh();
        }}
      >
        <p>
          An archived job takes no follow-ups.{' '}
          {current.status === 'active' ? 'Its running turn is stopped and nothing is pushed.' : 'Its pull request stays as it is.'}
        </p>
      </ConfirmDialog>
    </div>
  );
}

/** Bursts of events (one per tool step) cause one reload at a time, plus one after it, never one per event. */
function useThrottledRefresh(run: () => Promise<void>): () => void {
  const latest = useRef(run);
  latest.current = run;
  const trigger = useRef<(() => void) | null>(null);
  if (trigger.current === null) {
    let inFlight = false;
    let pending = false;
    const fire = (): void => {
      if (inFlight) {
        pending = true;
        return;
      }
      inFlight = true;
      void latest.current().finally(() => {
        inFlight = false;
        if (pending) {
          pending = false;
          fire();
        }
      });
    };
    trigger.current = fire;
  }
  return trigger.current;
}

function FollowUpForm({ projectId, job, onSent }: { projectId: string; job: Job; onSent: (job: Job) => void }) {
  const [prompt, setPrompt] = useState('');
  const { busy, error, run } = useSubmission();
  const submit = async (event: Event) => {
    event.preventDefault();
    if (prompt.trim() === '') return;
    await run(async () => {
      onSent(await jobsApi.followUp(projectId, job.id, prompt.trim()));
      setPrompt('');
    });
  };
  return (
    <form class="card follow-up" onSubmit={submit}>
      <Field
        label="Follow-up instruction"
        hint={
          job.status === 'active'
            ? 'It runs after the current turn, on the same branch.'
            : 'The agent continues on the same branch and updates the pull request.'
        }
      >
        {(id, describedBy) => (
          <textarea
            id={id}
            rows={3}
            maxLength={32_000}
            value={prompt}
            aria-describedby={describedBy}
            onInput={(event) => setPrompt(event.currentTarget.value)}
          />
        )}
      </Field>
      {error && <ErrorMessage error={error} title="Could not send the follow-up" />}
      <div class="form-actions">
        <button type="submit" class="btn btn-primary" disabled={busy || prompt.trim() === ''}>
          {busy ? 'Sending…' : 'Send follow-up'}
        </button>
      </div>
    </form>
  );
}
