import { useState } from 'preact/hooks';
import { useLocation, useRoute } from 'preact-iso';
import { projectsApi, type ProjectPatch, type SettingsPatch } from '../api/projects-api';
import type { Project } from '../api/types';
import { ConfirmDialog } from '../components/confirm-dialog';
import { ErrorMessage } from '../components/error-message';
import { Field } from '../components/field';
import { ProjectLayout } from '../components/project-layout';
import { notify } from '../components/toast';
import { useSubmission } from '../hooks/use-submission';
import { parseSiteHosts, siteHostsFieldError, siteHostsProblem } from '../lib/site-hosts';

export function SettingsPage() {
  const { params } = useRoute();
  return (
    <ProjectLayout projectId={params.projectId ?? ''} tab="settings" title="Settings">
      {(project) => <SettingsContent key={project.id} project={project} />}
    </ProjectLayout>
  );
}

function SettingsContent({ project }: { project: Project }) {
  const location = useLocation();
  const [current, setCurrent] = useState(project);
  const [name, setName] = useState(project.name);
  const [ref, setRef] = useState(project.ref);
  const [token, setToken] = useState('');
  const [model, setModel] = useState(project.settings.model ?? '');
  const [rateLimit, setRateLimit] = useState(project.settings.rateLimitPerHour?.toString() ?? '');
  const [origins, setOrigins] = useState((project.settings.allowedOrigins ?? []).join('\n'));
  const [siteHosts, setSiteHosts] = useState((project.settings.siteHosts ?? []).join('\n'));
  const [siteHostsError, setSiteHostsError] = useState<string | null>(null);
  const [rotate, setRotate] = useState(project.settings.rotateVisitorIdsDaily ?? false);
  const { busy, error, run } = useSubmission();
  const [deleting, setDeleting] = useState(false);
  const fields = error?.fieldErrors() ?? {};

  const submit = async (event: Event) => {
    event.preventDefault();
    const originList = origins
      .split(/[\s,]+/)
      .map((origin) => origin.trim())
      .filter(Boolean);
    const hostList = parseSiteHosts(siteHosts);
    const hostProblem = siteHostsProblem(hostList);
    setSiteHostsError(hostProblem);
    if (hostProblem !== null) return;
    // An emptied field is null: the server removes the setting and its default applies.
    const settings: SettingsPatch = {
      model: model.trim() === '' ? null : model.trim(),
      rateLimitPerHour: rateLimit.trim() === '' ? null : Number(rateLimit),
      allowedOrigins: originList.length === 0 ? null : originList,
      siteHosts: hostList.length === 0 ? null : hostList,
      rotateVisitorIdsDaily: rotate,
    };
    const patch: ProjectPatch = { name: name.trim(), ref: ref.trim(), settings };
    if (token !== '') patch.forgeToken = token;
    await run(async () => {
      const updated = await projectsApi.update(project.id, patch);
      setCurrent(updated);
      setToken('');
      notify('Settings saved.');
    });
  };

  return (
    <div class="stack">
      <form class="card form-card" onSubmit={submit} aria-labelledby="settings-heading">
        <h2 id="settings-heading">Project settings</h2>
        <div class="field-row">
          <Field label="Name" error={fields.name}>
            {(id, describedBy, invalid) => (
              <input
                id={id}
                required
                value={name}
                aria-invalid={invalid}
                aria-describedby={describedBy}
                onInput={(event) => setName(event.currentTarget.value)}
              />
            )}
          </Field>
          <Field label="Base branch" hint="Jobs branch off it and open pull requests against it." error={fields.ref}>
            {(id, describedBy, invalid) => (
              <input
                id={id}
                required
                spellcheck={false}
                value={ref}
                aria-invalid={invalid}
                aria-describedby={describedBy}
                onInput={(event) => setRef(event.currentTarget.value)}
              />
            )}
          </Field>
        </div>
        {current.forge !== 'local' && (
          <Field
            label="Forge token"
            hint={
              current.hasForgeCredentials
                ? 'A token is stored. Type a new one to replace it; it is never shown.'
                : 'No token stored yet. Jobs cannot push until one is set.'
            }
            error={fields.forgeToken}
          >
            {(id, describedBy, invalid) => (
              <input
                id={id}
                type="password"
                autoComplete="off"
                placeholder={current.hasForgeCredentials ? '••••••••' : ''}
                value={token}
                aria-invalid={invalid}
                aria-describedby={describedBy}
                onInput={(event) => setToken(event.currentTarget.value)}
              />
            )}
          </Field>
        )}
        <div class="field-row">
          <Field label="Default model" hint="provider:model, e.g. anthropic:claude-sonnet-5-5. Empty: the server's default." error={fields['settings.model']}>
            {(id, describedBy, invalid) => (
              <input
                id={id}
                spellcheck={false}
                value={model}
                aria-invalid={invalid}
                aria-describedby={describedBy}
                onInput={(event) => setModel(event.currentTarget.value)}
              />
            )}
          </Field>
          <Field
            label="Job rate limit per hour"
            hint="Creates and follow-ups together. Empty: the server's default (100)."
            error={fields['settings.rateLimitPerHour']}
          >
            {(id, describedBy, invalid) => (
              <input
                id={id}
                type="number"
                min={1}
                step={1}
                inputMode="numeric"
                value={rateLimit}
                aria-invalid={invalid}
                aria-describedby={describedBy}
                onInput={(event) => setRateLimit(event.currentTarget.value)}
              />
            )}
          </Field>
        </div>
        <Field
          label="Allowed beacon origins"
          hint="One origin per line, e.g. https://docs.example.com. Empty: the page beacon is off. * allows any origin."
          error={fields['settings.allowedOrigins'] ?? fields['settings.allowedOrigins.0']}
        >
          {(id, describedBy, invalid) => (
            <textarea
              id={id}
              rows={3}
              spellcheck={false}
              value={origins}
              aria-invalid={invalid}
              aria-describedby={describedBy}
              onInput={(event) => setOrigins(event.currentTarget.value)}
            />
          )}
        </Field>
        <Field
          label="Site hosts"
          hint="One host per line, e.g. docs.example.com (optionally with :port). An AI agent’s Web Bot Auth signature verifies only when it was made for one of them. Empty: the hosts of the allowed beacon origins."
          error={siteHostsError ?? siteHostsFieldError(fields)}
        >
          {(id, describedBy, invalid) => (
            <textarea
              id={id}
              rows={2}
              spellcheck={false}
              value={siteHosts}
              aria-invalid={invalid}
              aria-describedby={describedBy}
              onInput={(event) => setSiteHosts(event.currentTarget.value)}
            />
          )}
        </Field>
        <div class="check-field">
          <input
            id="rotate-visitor-ids"
            type="checkbox"
            checked={rotate}
            onChange={(event) => setRotate(event.currentTarget.checked)}
            aria-describedby="rotate-hint"
          />
          <label for="rotate-visitor-ids">Rotate visitor ids daily</label>
          <p class="field-hint" id="rotate-hint">
            More private: the same person on two days counts as two visitors over a range.
          </p>
        </div>
        {error && <ErrorMessage error={error} title="Could not save the settings" />}
        <div class="form-actions">
          <button type="submit" class="btn btn-primary" disabled={busy}>
            {busy ? 'Saving…' : 'Save settings'}
          </button>
        </div>
      </form>

      <section class="card danger-zone" aria-labelledby="danger-heading">
        <h2 id="danger-heading">Delete this project</h2>
        <p>Removes its jobs, API keys, analytics data and workspaces. The repository itself is not touched.</p>
        <button type="button" class="btn btn-danger" onClick={() => setDeleting(true)}>
          Delete project
        </button>
      </section>

      <ConfirmDialog
        open={deleting}
        title={`Delete ${current.name}?`}
        confirmLabel="Delete project"
        danger
        typeToConfirm={current.name}
        onClose={() => setDeleting(false)}
        onConfirm={async () => {
          await projectsApi.remove(project.id, current.name);
          notify(`Project ${current.name} deleted.`);
          location.route('/');
        }}
      >
        <p>Every job, key and visitor count of this project is deleted. This cannot be undone.</p>
      </ConfirmDialog>
    </div>
  );
}
