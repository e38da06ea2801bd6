import { useState } from 'preact/hooks';
import { projectsApi } from '../api/projects-api';
import { useSubmission } from '../hooks/use-submission';
import type { CreatedKey, KeyScope } from '../api/types';
import { ErrorMessage } from './error-message';
import { Field } from './field';

/** Scope, name and an optional expiry date (the key stops working at the end of that UTC day). */
export function NewKeyForm({ projectId, onCreated }: { projectId: string; onCreated: (key: CreatedKey) => void }) {
  const [scope, setScope] = useState<KeyScope>('admin');
  const [name, setName] = useState('');
  const [expires, setExpires] = useState('');
  const { busy, error, run } = useSubmission();
  const fields = error?.fieldErrors() ?? {};
  const today = new Date().toISOString().slice(0, 10);

  const submit = async (event: Event) => {
    event.preventDefault();
    await run(async () => {
      const input: { scope: KeyScope; name: string; expiresAt?: string } = { scope, name: name.trim() };
      if (expires !== '') input.expiresAt = `${expires}T23:59:59.999Z`;
      onCreated(await projectsApi.createKey(projectId, input));
      setName('');
      setExpires('');
    });
  };

  return (
    <form onSubmit={submit} class="inline-form">
      <Field label="Name" hint="Where the key is used, e.g. “CI docs bot”." error={fields.name}>
        {(id, describedBy, invalid) => (
          <input
            id={id}
            required
            maxLength={100}
            value={name}
            aria-invalid={invalid}
            aria-describedby={describedBy}
            onInput={(event) => setName(event.currentTarget.value)}
          />
        )}
      </Field>
      <Field label="Scope" hint={scope === 'admin' ? 'Jobs, analytics reports and ingestion.' : 'Only sends analytics events.'} error={fields.scope}>
        {(id, describedBy) => (
          <select id={id} value={scope} aria-describedby={describedBy} onChange={(event) => setScope(event.currentTarget.value as KeyScope)}>
            <option value="admin">admin</option>
            <option value="ingest">ingest</option>
          </select>
        )}
      </Field>
      <Field label="Expires (optional)" hint="End of the day, UTC." error={fields.expiresAt}>
        {(id, describedBy, invalid) => (
          <input
            id={id}
            type="date"
            min={today}
            value={expires}
            aria-invalid={invalid}
            aria-describedby={describedBy}
            onInput={(event) => setExpires(event.currentTarget.value)}
          />
        )}
      </Field>
      <div class="inline-form-submit">
        <button type="submit" class="btn btn-primary" disabled={busy || name.trim() === ''}>
          {busy ? 'Creating…' : 'Create key'}
        </button>
      </div>
      {error && (
        <div class="inline-form-error">
          <ErrorMessage error={error} title="Could not create the key" />
        </div>
      )}
    </form>
  );
}
