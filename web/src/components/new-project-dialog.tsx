import { useState } from 'preact/hooks';
import { projectsApi, type NewProject } from '../api/projects-api';
import type { ForgeKind, Project } from '../api/types';
import { useSubmission } from '../hooks/use-submission';
import { Dialog } from './dialog';
import { ErrorMessage } from './error-message';
import { Field } from './field';

interface Props {
  open: boolean;
  onClose: () => void;
  onCreated: (project: Project) => void;
}

type ForgeChoice = 'auto' | ForgeKind;

/** Name, repository, base branch, forge and its token (write-only: never shown again). */
export function NewProjectDialog({ open, onClose, onCreated }: Props) {
  const [name, setName] = useState('');
  const [repository, setRepository] = useState('');
  const [ref, setRef] = useState('main');
  const [forge, setForge] = useState<ForgeChoice>('auto');
  const [token, setToken] = useState('');
  const { busy, error, setError, run } = useSubmission();
  const fields = error?.fieldErrors() ?? {};
  const remote = forge === 'github' || forge === 'gitlab' || (forge === 'auto' && /^https?:\/\//i.test(repository));

  const close = () => {
    setError(null);
    onClose();
  };
  const submit = async (event: Event) => {
    event.preventDefault();
    const input: NewProject = { name: name.trim(), repository: repository.trim(), ref: ref.trim() || 'main' };
    if (forge !== 'auto') input.forge = forge;
    if (remote && token !== '') input.forgeToken = token;
    await run(async () => {
      const project = await projectsApi.create(input);
      setName('');
      setRepository('');
      setRef('main');
      setToken('');
      onCreated(project);
    });
  };

  return (
    <Dialog open={open} title="New project" onClose={close}>
      <form onSubmit={submit}>
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
        <Field
          label="Repository"
          hint="https://github.com/OWNER/NAME, a GitLab project URL, or the absolute path of a git repository on this server."
          error={fields.repository}
        >
          {(id, describedBy, invalid) => (
            <input
              id={id}
              required
              value={repository}
              spellcheck={false}
              aria-invalid={invalid}
              aria-describedby={describedBy}
              onInput={(event) => setRepository(event.currentTarget.value)}
            />
          )}
        </Field>
        <div class="field-row">
          <Field label="Base branch" error={fields.ref}>
            {(id, describedBy, invalid) => (
              <input
                id={id}
                value={ref}
                spellcheck={false}
                aria-invalid={invalid}
                aria-describedby={describedBy}
                onInput={(event) => setRef(event.currentTarget.value)}
              />
            )}
          </Field>
          <Field label="Forge" error={fields.forge}>
            {(id, describedBy) => (
              <select id={id} value={forge} aria-describedby={describedBy} onChange={(event) => setForge(event.currentTarget.value as ForgeChoice)}>
                <option value="auto">From the repository</option>
                <option value="local">Local (this server)</option>
                <option value="github">GitHub</option>
                <option value="gitlab">GitLab</option>
              </select>
            )}
          </Field>
        </div>
        {remote && (
          <Field
            label="Forge token"
            hint="Stored encrypted and never shown again. Needs permission to push branches and open pull requests."
            error={fields.forgeToken}
          >
            {(id, describedBy, invalid) => (
              <input
                id={id}
                type="password"
                autoComplete="off"
                value={token}
                aria-invalid={invalid}
                aria-describedby={describedBy}
                onInput={(event) => setToken(event.currentTarget.value)}
              />
            )}
          </Field>
        )}
        {error && <ErrorMessage error={error} title="Could not create the project" />}
        <div class="dialog-actions">
          <button type="button" class="btn" onClick={close}>
            Cancel
          </button>
          <button type="submit" class="btn btn-primary" disabled={busy || name.trim() === '' || repository.trim() === ''}>
            {busy ? 'Creating…' : 'Create project'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
