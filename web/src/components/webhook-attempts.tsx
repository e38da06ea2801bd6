import { webhooksApi, type WebhookMessage } from '../api/webhooks-api';
import { useResource } from '../hooks/use-resource';
import { formatDateTime } from '../lib/format';
import { ErrorMessage } from './error-message';
import { Loading } from './loading';

/** One message's attempts (the last 50): when, how long, the receiver's response code and the error. Reloads when the message changes. */
export function WebhookAttempts({ projectId, message }: { projectId: string; message: WebhookMessage }) {
  const detail = useResource(
    (signal) => webhooksApi.delivery(projectId, message.endpointId, message.id, signal),
    `${message.id}/${message.attempts}/${message.status}`,
  );
  if (detail.error) return <ErrorMessage error={detail.error} title="Could not load the attempts" onRetry={detail.reload} />;
  if (!detail.data) return <Loading label="Loading attempts…" />;
  if (detail.data.attemptLog.length === 0) return <p class="muted">No attempt yet.</p>;
  return (
    <table class="table table-compact" aria-label={`Attempts of ${message.id}`}>
      <thead>
        <tr>
          <th scope="col">#</th>
          <th scope="col">Trigger</th>
          <th scope="col">Started</th>
          <th scope="col">Duration</th>
          <th scope="col">Response</th>
          <th scope="col">Outcome</th>
        </tr>
      </thead>
      <tbody>
        {detail.data.attemptLog.map((attempt) => (
          <tr key={attempt.attempt} data-attempt={attempt.attempt} data-trigger={attempt.trigger} data-outcome={attempt.outcome}>
            <td>{attempt.attempt}</td>
            <td>{attempt.trigger}</td>
            <td>
              <time dateTime={attempt.startedAt}>{formatDateTime(attempt.startedAt)}</time>
            </td>
            <td>{attempt.durationMs} ms</td>
            <td data-testid="response-status">{attempt.responseStatus ?? <span class="muted">none</span>}</td>
            <td>
              {attempt.outcome === 'succeeded' ? 'Delivered' : 'Failed'}
              {attempt.errorCode && (
                <>
                  {' '}
                  <code class="error-code">{attempt.errorCode}</code> <span class="muted small">{attempt.errorMessage}</span>
                </>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
