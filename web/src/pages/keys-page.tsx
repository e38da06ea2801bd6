import { useState } from 'preact/hooks';
import { useRoute } from 'preact-iso';
import { projectsApi } from '../api/projects-api';
import type { ApiKeyInfo, CreatedKey, Project } from '../api/types';
import { CodeBlock } from '../components/code-block';
import { ConfirmDialog } from '../components/confirm-dialog';
import { CopyButton } from '../components/copy-button';
import { ErrorMessage } from '../components/error-message';
import { Loading } from '../components/loading';
import { NewKeyForm } from '../components/new-key-form';
import { SecretCard } from '../components/secret-card';
import { ProjectLayout } from '../components/project-layout';
import { notify } from '../components/toast';
import { useResource } from '../hooks/use-resource';
import { formatDateTime } from '../lib/format';
import { RelativeTime } from '../components/relative-time';

export function KeysPage() {
  const { params } = useRoute();
  const projectId = params.projectId ?? '';
  return (
    <ProjectLayout projectId={projectId} tab="keys" title="API keys">
      {(project) => <KeysContent project={project} />}
    </ProjectLayout>
  );
}

function jobCurl(projectId: string): string {
  return [
    `curl -X POST '${location.origin}/v2/agent/${projectId}/job' \\`,
    `  -H "Authorization: Bearer $DOCWRIGHT_API_KEY" \\`,
    `  -H 'Content-Type: application/json' \\`,
    `  -d '{"prompt": "Fix the typos in the quickstart"}'`,
  ].join('\n');
}

function KeysContent({ project }: { project: Project }) {
  const keys = useResource((signal) => projectsApi.keys(project.id, signal), project.id);
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const [revoking, setRevoking] = useState<ApiKeyInfo | null>(null);

  return (
    <div class="stack">
      <section class="card" aria-labelledby="project-id-heading">
        <h2 id="project-id-heading">Project id</h2>
        <p class="muted">
          Use it in API paths (<code>/v2/agent/{'{projectId}'}/…</code>, <code>/v1/analytics/{'{projectId}'}/…</code>) and in the page beacon.
        </p>
        <div class="copy-row">
          <code class="copy-value" data-testid="project-id">
            {project.id}
          </code>
          <CopyButton text={project.id} label="project id" />
        </div>
      </section>

      {created && (
        <SecretCard title={`Your new ${created.key.scope} key`} secret={created.secret} label="API key" testId="new-key-secret" onDone={() => setCreated(null)}>
          <p>Copy it now: this is the only time Docwright shows it. Only its hash is stored.</p>
        </SecretCard>
      )}

      <section class="card" aria-labelledby="new-key-heading">
        <h2 id="new-key-heading">Create a key</h2>
        <NewKeyForm
          projectId={project.id}
          onCreated={(result) => {
            setCreated(result);
            keys.setData((previous) => [result.key, ...(previous ?? [])]);
          }}
        />
      </section>

      <section class="card" aria-labelledby="keys-heading">
        <h2 id="keys-heading">Keys</h2>
        {keys.error && <ErrorMessage error={keys.error} title="Could not load the keys" onRetry={keys.reload} />}
        {keys.loading && !keys.data && <Loading label="Loading keys…" />}
        {keys.data?.length === 0 && <p class="muted">No keys yet. Create one above to call the API.</p>}
        {keys.data && keys.data.length > 0 && (
          <div class="table-scroll" tabIndex={0} role="region" aria-label="API keys">
            <table class="table">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Key</th>
                  <th scope="col">Scope</th>
                  <th scope="col">Created</th>
                  <th scope="col">Last used</th>
                  <th scope="col">Expires</th>
                  <th scope="col">
                    <span class="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {keys.data.map((key) => (
                  <tr key={key.id} class={key.revokedAt ? 'row-muted' : undefined}>
                    <td>{key.name || <span class="muted">unnamed</span>}</td>
                    <td>
                      <code>{key.hint}</code>
                    </td>
                    <td>
                      <span class={`scope scope-${key.scope}`}>{key.scope}</span>
                    </td>
                    <td>
                      <RelativeTime iso={key.createdAt} />
                    </td>
                    <td>{key.lastUsedAt ? <RelativeTime iso={key.lastUsedAt} /> : <span class="muted">never</span>}</td>
                    <td>{key.expiresAt ? <time dateTime={key.expiresAt}>{formatDateTime(key.expiresAt)}</time> : <span class="muted">never</span>}</td>
                    <td class="cell-actions">
                      {key.revokedAt ? (
                        <span class="badge badge-archived" title={formatDateTime(key.revokedAt)}>
                          Revoked
                        </span>
                      ) : (
                        <button
                          type="button"
                          class="btn btn-small btn-danger-outline"
                          onClick={() => setRevoking(key)}
                          aria-label={`Revoke key ${key.name || key.hint}`}
                        >
                          Revoke
                        </button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>

      <section class="card" aria-labelledby="curl-heading">
        <h2 id="curl-heading">Create a job from the command line</h2>
        <p class="muted">
          With an admin key in <code>DOCWRIGHT_API_KEY</code>; poll the job at <code>/v2/agent/{project.id}/job/ID</code>.
        </p>
        <CodeBlock code={jobCurl(project.id)} label="curl command that creates a job" />
      </section>

      <ConfirmDialog
        open={revoking !== null}
        title="Revoke this key?"
        confirmLabel="Revoke key"
        danger
        onClose={() => setRevoking(null)}
        onConfirm={async () => {
          if (!revoking) return;
          await projectsApi.revokeKey(project.id, revoking.id);
          const revokedAt = new Date().toISOString();
          keys.setData((previous) => (previous ?? []).map((key) => (key.id === revoking.id ? { ...key, revokedAt } : key)));
          notify('Key revoked.');
        }}
      >
        <p>
          Programs using <code>{revoking?.hint}</code> {revoking?.name ? `(“${revoking.name}”)` : ''} stop working at once. This cannot be undone.
        </p>
      </ConfirmDialog>
    </div>
  );
}
