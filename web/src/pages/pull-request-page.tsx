import { useMemo, useState } from 'preact/hooks';
import { useRoute } from 'preact-iso';
import { toApiError, type ApiError } from '../api/api-error';
import { pullsApi } from '../api/pulls-api';
import { useSession } from '../api/session-store';
import type { PullRequest } from '../api/types';
import { ConfirmDialog } from '../components/confirm-dialog';
import { DiffView, parseDiff } from '../components/diff-view';
import { ErrorMessage } from '../components/error-message';
import { Loading } from '../components/loading';
import { PullRequestFiles } from '../components/pull-request-files';
import { StatusBadge } from '../components/status-badge';
import { notify } from '../components/toast';
import { useDocumentTitle } from '../hooks/use-document-title';
import { useResource } from '../hooks/use-resource';
import '../styles/pull-request.css';

export default function PullRequestPage() {
  const { params, query } = useRoute();
  const projectId = params.projectId ?? '';
  const number = params.number ?? '';
  const token = query.token;
  const session = useSession();
  const signedIn = session.status === 'ready' && session.user !== null;
  const pr = useResource((signal) => pullsApi.get(projectId, number, token, signal), `${projectId}:${number}:${token ?? ''}`);
  useDocumentTitle(pr.data ? `${pr.data.title} · Pull request #${number}` : `Pull request #${number}`);

  if (!pr.data) {
    return (
      <div class="page">
        {pr.error ? (
          <>
            <h1>Pull request #{number}</h1>
            <ErrorMessage
              error={pr.error}
              title={pr.error.status === 404 ? 'This pull request does not exist, or the link is incomplete' : 'Could not load the pull request'}
              onRetry={pr.reload}
            />
            {!signedIn && (
              <p>
                Have an account? <a href={`/signin?next=${encodeURIComponent(location.pathname + location.search)}`}>Sign in</a> to open it without the link's
                token.
              </p>
            )}
          </>
        ) : (
          <Loading label="Loading the pull request…" />
        )}
      </div>
    );
  }
  return <PullRequestView projectId={projectId} number={number} token={token} pr={pr.data} signedIn={signedIn} onChange={(next) => pr.setData(next)} />;
}

interface ViewProps {
  projectId: string;
  number: string;
  token: string | undefined;
  pr: PullRequest;
  signedIn: boolean;
  onChange: (pr: PullRequest) => void;
}

function PullRequestView({ projectId, number, token, pr, signedIn, onChange }: ViewProps) {
  const [merging, setMerging] = useState(false);
  const [closing, setClosing] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const parsed = useMemo(() => parseDiff(pr.diff), [pr.diff]);

  const merge = async () => {
    // What is merged is the head this page shows, never whatever the branch holds by then.
    const reviewed = pr.headCommit;
    if (reviewed === null) return;
    setMerging(true);
    setError(null);
    try {
      onChange(await pullsApi.merge(projectId, number, reviewed));
      notify(`Pull request #${number} merged into ${pr.base}.`);
    } catch (failure) {
      const refused = toApiError(failure);
      setError(refused);
      // New commits arrived: show them, so that they are reviewed before the next merge.
      if (refused.code === 'head_moved') onChange(await pullsApi.get(projectId, number, token).catch(() => pr));
    } finally {
      setMerging(false);
    }
  };

  return (
    <div class="page pr-page">
      <div class="pr-header">
        {signedIn && (
          <p class="breadcrumb-sub">
            <a href={`/projects/${encodeURIComponent(projectId)}/jobs${pr.jobId ? `/${encodeURIComponent(pr.jobId)}` : ''}`}>
              {pr.jobId ? '← The job behind it' : '← Jobs'}
            </a>
          </p>
        )}
        <h1 class="pr-title">
          {pr.title} <span class="muted">#{pr.number}</span>
        </h1>
        <div class="pr-meta">
          <StatusBadge status={pr.status} kind="pr" />
          <span>
            <code>{pr.head}</code> <span aria-label="into">→</span> <code>{pr.base}</code>
          </span>
          {pr.headCommit && (
            <span class="muted small" data-testid="pr-head-commit">
              head <code>{pr.headCommit.slice(0, 12)}</code>
            </span>
          )}
          {pr.mergeCommit && (
            <span class="muted small">
              merge commit <code>{pr.mergeCommit.slice(0, 12)}</code>
            </span>
          )}
        </div>
        {signedIn && pr.status === 'open' && (
          <div class="pr-actions">
            <button type="button" class="btn btn-success" onClick={merge} disabled={merging || pr.headCommit === null}>
              {merging ? 'Merging…' : `Merge into ${pr.base}`}
            </button>
            <button type="button" class="btn" onClick={() => setClosing(true)} disabled={merging}>
              Close pull request
            </button>
          </div>
        )}
        {!signedIn && <p class="muted small">Read-only view from a shared link. Sign in to merge or close.</p>}
      </div>
      {error && <ErrorMessage error={error} title={errorTitle(error, pr)} />}
      {error?.code === 'head_moved' && (
        <p class="muted" data-testid="pr-head-moved">
          The page now shows {pr.head} as it is{pr.headCommit ? ` (${pr.headCommit.slice(0, 12)})` : ''}: review the new changes below, then merge again.
        </p>
      )}
      {error?.code === 'merge_conflict' && (
        <p class="muted">
          {pr.jobId && signedIn ? (
            <>
              Ask the agent to bring its branch up to date in a{' '}
              <a href={`/projects/${encodeURIComponent(projectId)}/jobs/${encodeURIComponent(pr.jobId)}`}>follow-up</a>, or resolve the conflict in git and
              merge by hand.
            </>
          ) : (
            'Resolve the conflict in git, then merge again.'
          )}
        </p>
      )}
      {pr.bodyHtml.trim() !== '' && (
        <section class="card pr-body" aria-label="Description">
          {/* bodyHtml is sanitised by the server; it is the only server HTML the dashboard inserts. */}
          <div class="prose" dangerouslySetInnerHTML={{ __html: pr.bodyHtml }} />
        </section>
      )}
      <PullRequestFiles files={pr.files} truncated={pr.filesTruncated} />
      {!pr.diffAvailable ? (
        <p class="alert alert-warning">The diff is not available: a branch of this pull request is gone from the repository.</p>
      ) : pr.diff.trim() === '' ? (
        <p class="muted">
          No changes between {pr.head} and {pr.base}.
        </p>
      ) : (
        <>
          {pr.diffTruncated && <p class="alert alert-warning">The diff is larger than 1 MiB; it is cut at its last whole line.</p>}
          <DiffView files={parsed} />
        </>
      )}
      <ConfirmDialog
        open={closing}
        title={`Close pull request #${pr.number}?`}
        confirmLabel="Close pull request"
        danger
        onClose={() => setClosing(false)}
        onConfirm={async () => {
          onChange(await pullsApi.close(projectId, number));
          notify(`Pull request #${number} closed.`);
        }}
      >
        <p>The branch stays; nothing is merged into {pr.base}.</p>
      </ConfirmDialog>
    </div>
  );
}

function errorTitle(error: ApiError, pr: PullRequest): string {
  if (error.code === 'merge_conflict') return `Merge conflict: nothing was merged into ${pr.base}`;
  if (error.code === 'head_moved') return `New commits were pushed to ${pr.head} since the page loaded: nothing was merged`;
  return 'The action failed';
}
