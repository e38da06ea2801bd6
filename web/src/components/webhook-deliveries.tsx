import { useEffect, useState } from 'preact/hooks';
import { webhooksApi, type DeliveryStatus, type WebhookMessage } from '../api/webhooks-api';
import { useResource } from '../hooks/use-resource';
import { useSubmission } from '../hooks/use-submission';
import { EmptyState } from './empty-state';
import { ErrorMessage } from './error-message';
import { Loading } from './loading';
import { notify } from './toast';
import { DeliveryBadge } from './webhook-badges';
import { WebhookAttempts } from './webhook-attempts';
import { RelativeTime } from './relative-time';

const PAGE = 20;
/** While a delivery is pending the log refreshes itself: workers send within a poll interval. */
const REFRESH_MS = 2_000;

interface Props {
  projectId: string;
  webhookId: string;
}

/** An endpoint's messages, newest first: status, attempts, time, next retry, last error; attempts with response codes; redelivery. */
export function WebhookDeliveries({ projectId, webhookId }: Props) {
  const [status, setStatus] = useState<DeliveryStatus | ''>('');
  const [limit, setLimit] = useState(PAGE);
  const log = useResource(
    (signal) => webhooksApi.deliveries(projectId, webhookId, { status: status === '' ? undefined : status, limit, offset: 0 }, signal),
    `${webhookId}/${status}/${limit}`,
  );
  const [open, setOpen] = useState<string | null>(null);
  const redelivery = useSubmission();
  const pending = log.data?.messages.some((message) => message.status === 'pending') ?? false;

  useEffect(() => {
    if (!pending) return;
    const timer = setInterval(log.reload, REFRESH_MS);
    return () => clearInterval(timer);
  }, [pending, log.reload]);

  const redeliver = (message: WebhookMessage) =>
    redelivery.run(async () => {
      const updated = await webhooksApi.redeliver(projectId, webhookId, message.id);
      log.setData((previous) => ({
        hasMore: previous?.hasMore ?? false,
        messages: (previous?.messages ?? []).map((item) => (item.id === updated.id ? updated : item)),
      }));
      notify('Redelivery queued: it is sent with the same webhook-id.');
    });

  return (
    <section class="card" aria-labelledby="deliveries-heading">
      <div class="section-header">
        <h2 id="deliveries-heading">Delivery log</h2>
        <div class="section-tools">
          <label class="visually-hidden" for="delivery-status">
            Delivery status
          </label>
          <select id="delivery-status" value={status} onChange={(change) => setStatus(change.currentTarget.value as DeliveryStatus | '')}>
            <option value="">All deliveries</option>
            <option value="pending">Pending</option>
            <option value="succeeded">Delivered</option>
            <option value="failed">Failed</option>
          </select>
          <button type="button" class="btn btn-small" onClick={log.reload}>
            Refresh
          </button>
        </div>
      </div>
      {log.error && <ErrorMessage error={log.error} title="Could not load the delivery log" onRetry={log.reload} />}
      {redelivery.error && <ErrorMessage error={redelivery.error} title="Could not redeliver" />}
      {log.loading && !log.data && <Loading label="Loading deliveries…" />}
      {log.data?.messages.length === 0 && (
        <EmptyState title={status === '' ? 'No deliveries yet' : 'No deliveries with this status'}>
          <p class="muted">A message appears here when a job or pull request event this endpoint listens to happens.</p>
        </EmptyState>
      )}
      {log.data && log.data.messages.length > 0 && (
        <div class="table-scroll" tabIndex={0} role="region" aria-label="Deliveries">
          <table class="table">
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">Created</th>
                <th scope="col">Next retry</th>
                <th scope="col">Last error</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {log.data.messages.map((message) => (
                <MessageRows
                  key={message.id}
                  message={message}
                  projectId={projectId}
                  open={open === message.id}
                  onToggle={() => setOpen(open === message.id ? null : message.id)}
                  onRedeliver={() => void redeliver(message)}
                  busy={redelivery.busy}
                />
              ))}
            </tbody>
          </table>
        </div>
      )}
      {log.data?.hasMore && (
        <p class="list-more">
          <button type="button" class="btn" onClick={() => setLimit(limit + PAGE)}>
            Show more
          </button>
        </p>
      )}
    </section>
  );
}

interface RowProps {
  message: WebhookMessage;
  projectId: string;
  open: boolean;
  busy: boolean;
  onToggle: () => void;
  onRedeliver: () => void;
}

function MessageRows({ message, projectId, open, busy, onToggle, onRedeliver }: RowProps) {
  const detailsId = `attempts-${message.id}`;
  return (
    <>
      <tr data-message-id={message.id}>
        <td>
          <code>{message.eventType}</code>
          <span class="muted small"> {message.id}</span>
        </td>
        <td>
          <DeliveryBadge status={message.status} />
        </td>
        <td>{message.attempts}</td>
        <td>
          <RelativeTime iso={message.createdAt} />
        </td>
        <td>{message.nextAttemptAt ? <RelativeTime iso={message.nextAttemptAt} /> : <span class="muted">—</span>}</td>
        <td class="error-cell">{message.lastError ?? <span class="muted">—</span>}</td>
        <td class="cell-actions">
          <button type="button" class="btn btn-small" aria-expanded={open} aria-controls={open ? detailsId : undefined} onClick={onToggle}>
            {open ? 'Hide attempts' : 'Attempts'}
          </button>{' '}
          <button type="button" class="btn btn-small" disabled={busy} onClick={onRedeliver} aria-label={`Redeliver ${message.eventType} ${message.id}`}>
            Redeliver
          </button>
        </td>
      </tr>
      {open && (
        <tr id={detailsId} class="attempts-row">
          <td colSpan={7}>
            <WebhookAttempts projectId={projectId} message={message} />
          </td>
        </tr>
      )}
    </>
  );
}
