import type { WebhookEvent } from '../api/webhooks-api';

// A Record over the API's event type: a type the API gains fails to compile here until it is described.
const DESCRIPTIONS: Record<WebhookEvent, string> = {
  'job.completed': 'a job’s run succeeded',
  'job.failed': 'a job’s run failed',
  'job.archived': 'a job was archived',
  'job.cancelled': 'a job was cancelled',
  'pull_request.opened': 'a job opened a pull request',
  'pull_request.updated': 'a later turn updated it',
  'pull_request.merged': 'a local pull request was merged',
};
/** In the API's order. */
const WEBHOOK_EVENTS = Object.keys(DESCRIPTIONS) as WebhookEvent[];

interface Props {
  selected: WebhookEvent[];
  onChange: (events: WebhookEvent[]) => void;
  error?: string | undefined;
}

/** The event filter: a checkbox per event type; none ticked sends every event (the API's empty list). */
export function WebhookEventsField({ selected, onChange, error }: Props) {
  const toggle = (event: WebhookEvent, on: boolean) => onChange(WEBHOOK_EVENTS.filter((type) => (type === event ? on : selected.includes(type))));
  return (
    <fieldset class={`fieldset${error ? ' field-invalid' : ''}`} aria-describedby="webhook-events-hint">
      <legend>Events</legend>
      <p class="field-hint" id="webhook-events-hint">
        Tick none to receive every event, including types added later.
      </p>
      <div class="check-grid">
        {WEBHOOK_EVENTS.map((event) => (
          <label key={event} class="check-option">
            <input type="checkbox" checked={selected.includes(event)} onChange={(change) => toggle(event, change.currentTarget.checked)} />
            <span>
              <code>{event}</code> <span class="muted small">{DESCRIPTIONS[event]}</span>
            </span>
          </label>
        ))}
      </div>
      {error && <p class="field-error">{error}</p>}
    </fieldset>
  );
}

/** "every event" for the API's empty filter, else the list. */
export function describeEvents(events: readonly WebhookEvent[]): string {
  return events.length === 0 ? 'every event' : events.join(', ');
}
