import { useState } from 'preact/hooks';
import { useRoute } from 'preact-iso';
import type { Project } from '../api/types';
import { webhooksApi, type WebhookWithSecret } from '../api/webhooks-api';
import { EmptyState } from '../components/empty-state';
import { ErrorMessage } from '../components/error-message';
import { Loading } from '../components/loading';
import { NewWebhookForm } from '../components/new-webhook-form';
import { ProjectLayout } from '../components/project-layout';
import { SecretCard } from '../components/secret-card';
import { describeEvents } from '../components/webhook-events-field';
import { EnabledBadge } from '../components/webhook-badges';
import { useResource } from '../hooks/use-resource';
import { RelativeTime } from '../components/relative-time';

export default function WebhooksPage() {
  const { params } = useRoute();
  return (
    <ProjectLayout projectId={params.projectId ?? ''} tab="webhooks" title="Webhooks">
      {(project) => <WebhooksContent project={project} />}
    </ProjectLayout>
  );
}

const webhookPath = (projectId: string, webhookId: string) => `/projects/${encodeURIComponent(projectId)}/webhooks/${encodeURIComponent(webhookId)}`;

function WebhooksContent({ project }: { project: Project }) {
  const webhooks = useResource((signal) => webhooksApi.list(project.id, signal), project.id);
  const [created, setCreated] = useState<WebhookWithSecret | null>(null);

  return (
    <div class="stack">
      {created && (
        <SecretCard
          title="Signing secret of the new webhook"
          secret={created.secret}
          label="signing secret"
          testId="webhook-secret"
          onDone={() => setCreated(null)}
        >
          <p>
            Copy it now: <strong>you won’t see it again.</strong> Docwright keeps only an encrypted copy to sign deliveries; your receiver checks the{' '}
            <code>webhook-signature</code> header with it. Lost it? Rotate the secret on the{' '}
            <a href={webhookPath(project.id, created.webhook.id)}>webhook’s page</a>.
          </p>
        </SecretCard>
      )}

      <section class="card" aria-labelledby="new-webhook-heading">
        <h2 id="new-webhook-heading">Add a webhook</h2>
        <p class="muted">
          Docwright sends signed <a href="https://www.standardwebhooks.com/">Standard Webhooks</a> when jobs and pull requests change, and retries failed
          deliveries for over a day.
        </p>
        <NewWebhookForm
          projectId={project.id}
          onCreated={(result) => {
            setCreated(result);
            webhooks.setData((previous) => [...(previous ?? []), result.webhook]);
          }}
        />
      </section>

      <section class="card" aria-labelledby="webhooks-heading">
        <h2 id="webhooks-heading">Endpoints</h2>
        {webhooks.error && <ErrorMessage error={webhooks.error} title="Could not load the webhooks" onRetry={webhooks.reload} />}
        {webhooks.loading && !webhooks.data && <Loading label="Loading webhooks…" />}
        {webhooks.data?.length === 0 && (
          <EmptyState title="No webhooks yet">
            <p class="muted">Add one above to be told when a job finishes or opens a pull request, instead of polling.</p>
          </EmptyState>
        )}
        {webhooks.data && webhooks.data.length > 0 && (
          <div class="table-scroll" tabIndex={0} role="region" aria-label="Webhook endpoints">
            <table class="table">
              <thead>
                <tr>
                  <th scope="col">URL</th>
                  <th scope="col">Events</th>
                  <th scope="col">Status</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {webhooks.data.map((webhook) => (
                  <tr key={webhook.id} data-webhook-id={webhook.id} class={webhook.enabled ? undefined : 'row-muted'}>
                    <td class="url-cell">
                      <a href={webhookPath(project.id, webhook.id)}>{webhook.url}</a>
                      {webhook.description !== '' && <span class="muted small">{webhook.description}</span>}
                    </td>
                    <td>{describeEvents(webhook.events)}</td>
                    <td>
                      <EnabledBadge enabled={webhook.enabled} />
                    </td>
                    <td>
                      <RelativeTime iso={webhook.createdAt} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </div>
  );
}
