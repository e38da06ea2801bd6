import { useState } from 'preact/hooks';
import { webhooksApi, type WebhookEvent, type WebhookWithSecret } from '../api/webhooks-api';
import { useSubmission } from '../hooks/use-submission';
import { ErrorMessage } from './error-message';
import { Field } from './field';
import { WebhookEventsField } from './webhook-events-field';

/** What the server accepts at all (scheme and length); which addresses it refuses is its own call, shown as its problem. */
export function webhookUrlProblem(value: string): string | null {
  if (value.length > 2_048) return 'must be at most 2,048 characters';
  try {
    const url = new URL(value);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an https:// URL';
    if (url.username !== '' || url.password !== '') return 'must not carry a user name or password';
    return null;
  } catch {
    return 'must be a full URL, e.g. https://ci.example.com/docwright';
  }
}

/** URL, description, event filter and enabled flag of a new endpoint; the answer carries its secret once. */
export function NewWebhookForm({ projectId, onCreated }: { projectId: string; onCreated: (created: WebhookWithSecret) => void }) {
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<WebhookEvent[]>([]);
  const [enabled, setEnabled] = useState(true);
  const [urlError, setUrlError] = useState<string | null>(null);
  const { busy, error, run } = useSubmission();
  const fields = error?.fieldErrors() ?? {};

  const submit = async (event: Event) => {
    event.preventDefault();
    const trimmed = url.trim();
    const problem = webhookUrlProblem(trimmed);
    setUrlError(problem);
    if (problem !== null) return;
    await run(async () => {
      onCreated(await webhooksApi.create(projectId, { url: trimmed, description: description.trim(), events, enabled }));
      setUrl('');
      setDescription('');
      setEvents([]);
      setEnabled(true);
    });
  };

  return (
    <form onSubmit={submit} noValidate>
      <div class="field-row">
        <Field
          label="Endpoint URL"
          hint="https:// only; private and loopback addresses are refused unless the server allows them."
          error={urlError ?? fields.url}
        >
          {(id, describedBy, invalid) => (
            <input
              id={id}
              type="url"
              required
              spellcheck={false}
              placeholder="https://ci.example.com/docwright"
              value={url}
              aria-invalid={invalid}
              aria-describedby={describedBy}
              onInput={(change) => setUrl(change.currentTarget.value)}
            />
          )}
        </Field>
        <Field label="Description (optional)" hint="Who receives it, e.g. “CI notifications”." error={fields.description}>
          {(id, describedBy, invalid) => (
            <input
              id={id}
              maxLength={200}
              value={description}
              aria-invalid={invalid}
              aria-describedby={describedBy}
              onInput={(change) => setDescription(change.currentTarget.value)}
            />
          )}
        </Field>
      </div>
      <WebhookEventsField selected={events} onChange={setEvents} error={fields.events} />
      <div class="check-field">
        <input
          id="new-webhook-enabled"
          type="checkbox"
          checked={enabled}
          onChange={(change) => setEnabled(change.currentTarget.checked)}
          aria-describedby="new-webhook-enabled-hint"
        />
        <label for="new-webhook-enabled">Enabled</label>
        <p class="field-hint" id="new-webhook-enabled-hint">
          A disabled endpoint records no events until it is enabled.
        </p>
      </div>
      {error && <ErrorMessage error={error} title="Could not create the webhook" />}
      <div class="form-actions">
        <button type="submit" class="btn btn-primary" disabled={busy || url.trim() === ''}>
          {busy ? 'Creating…' : 'Create webhook'}
        </button>
      </div>
    </form>
  );
}
