import { useState } from 'preact/hooks';
import { useLocation, useRoute } from 'preact-iso';
import type { Project } from '../api/types';
import { webhooksApi, type WebhookEndpoint } from '../api/webhooks-api';
import { ConfirmDialog } from '../components/confirm-dialog';
import { ErrorMessage } from '../components/error-message';
import { Loading } from '../components/loading';
import { ProjectLayout } from '../components/project-layout';
import { SecretCard } from '../components/secret-card';
import { notify } from '../components/toast';
import { EnabledBadge } from '../components/webhook-badges';
import { WebhookDeliveries } from '../components/webhook-deliveries';
import { describeEvents } from '../components/webhook-events-field';
import { useResource } from '../hooks/use-resource';
import { useSubmission } from '../hooks/use-submission';
import { formatDateTime } from '../lib/format';

export default function WebhookPage() {
  const { params } = useRoute();
  return (
    <ProjectLayout projectId={params.projectId ?? ''} tab="webhooks" title="Webhook">
      {(project) => <WebhookContent key={params.webhookId} project={project} webhookId={params.webhookId ?? ''} />}
    </ProjectLayout>
  );
}

function WebhookContent({ project, webhookId }: { project: Project; webhookId: string }) {
  const location = useLocation();
  const endpoint = useResource((signal) => webhooksApi.get(project.id, webhookId, signal), `${project.id}/${webhookId}`);
  const [rotated, setRotated] = useState<string | null>(null);
  const [rotating, setRotating] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const toggle = useSubmission();
  const listPath = `/projects/${encodeURIComponent(project.id)}/webhooks`;
  const back = (
    <p>
      <a href={listPath}>← All webhooks</a>
    </p>
  );

  if (!endpoint.data) {
    return (
      <div class="stack">
        {back}
        {endpoint.error ? (
          <ErrorMessage
            error={endpoint.error}
            title={endpoint.error.status === 404 ? 'No such webhook' : 'Could not load the webhook'}
            onRetry={endpoint.reload}
          />
        ) : (
          <Loading label="Loading the webhook…" />
        )}
      </div>
    );
  }
  const webhook: WebhookEndpoint = endpoint.data;
  const setEnabled = (enabled: boolean) =>
    toggle.run(async () => {
      endpoint.setData(await webhooksApi.update(project.id, webhook.id, { enabled }));
      notify(enabled ? 'Webhook enabled.' : 'Webhook disabled.');
    });

  return (
    <div class="stack">
      {back}
      {rotated !== null && (
        <SecretCard title="New signing secret" secret={rotated} label="new signing secret" testId="webhook-secret" onDone={() => setRotated(null)}>
          <p>
            Copy it now: <strong>you won’t see it again.</strong>
          </p>
          <p>{overlapText(webhook.previousSecretExpiresAt)}</p>
        </SecretCard>
      )}

      <section class="card" aria-labelledby="webhook-heading">
        <div class="section-header">
          <h2 id="webhook-heading" class="url-heading">
            {webhook.url}
          </h2>
          <EnabledBadge enabled={webhook.enabled} />
        </div>
        <dl class="facts">
          {webhook.description !== '' && (
            <>
              <dt>Description</dt>
              <dd>{webhook.description}</dd>
            </>
          )}
          <dt>Events</dt>
          <dd>{describeEvents(webhook.events)}</dd>
          <dt>Created</dt>
          <dd>
            <time dateTime={webhook.createdAt}>{formatDateTime(webhook.createdAt)}</time>
          </dd>
          <dt>Secret</dt>
          <dd data-testid="secret-state">
            {webhook.previousSecretExpiresAt
              ? `Rotated: the previous secret also signs until ${formatDateTime(webhook.previousSecretExpiresAt)}.`
              : 'One secret signs every delivery.'}
          </dd>
        </dl>
        {toggle.error && <ErrorMessage error={toggle.error} title="Could not change the webhook" />}
        <div class="form-actions">
          <button type="button" class="btn" disabled={toggle.busy} onClick={() => void setEnabled(!webhook.enabled)}>
            {webhook.enabled ? 'Disable' : 'Enable'}
          </button>
          <button type="button" class="btn" onClick={() => setRotating(true)}>
            Rotate secret
          </button>
          <button type="button" class="btn btn-danger-outline" onClick={() => setDeleting(true)}>
            Delete
          </button>
        </div>
        {!webhook.enabled && <p class="muted">Disabled: no events are recorded for it, and deliveries still waiting fail with endpoint_disabled.</p>}
      </section>

      <WebhookDeliveries projectId={project.id} webhookId={webhook.id} />

      <ConfirmDialog
        open={rotating}
        title="Rotate the signing secret?"
        confirmLabel="Rotate secret"
        onClose={() => setRotating(false)}
        onConfirm={async () => {
          const result = await webhooksApi.rotateSecret(project.id, webhook.id);
          endpoint.setData(result.webhook);
          setRotated(result.secret);
        }}
      >
        <p>
          A new secret signs every delivery from now on. The current one keeps signing alongside it for an overlap (24 hours unless the server is set
          otherwise), so your receiver keeps verifying while you switch it over. Rotating again during the overlap drops the older secret at once.
        </p>
      </ConfirmDialog>

      <ConfirmDialog
        open={deleting}
        title="Delete this webhook?"
        confirmLabel="Delete webhook"
        danger
        onClose={() => setDeleting(false)}
        onConfirm={async () => {
          await webhooksApi.remove(project.id, webhook.id);
          notify('Webhook deleted.');
          location.route(listPath);
        }}
      >
        <p>
          Deliveries to <code>{webhook.url}</code> stop at once; its undelivered messages and its delivery log are deleted. This cannot be undone.
        </p>
      </ConfirmDialog>
    </div>
  );
}

function overlapText(previousExpiresAt: string | null): string {
  if (previousExpiresAt === null) return 'The previous secret no longer signs: update your receiver now.';
  return `Overlap: until ${formatDateTime(previousExpiresAt)} every delivery carries two signatures, one per secret, so a receiver holding either verifies. Switch your receiver to the new secret before then.`;
}
