import type { MessageRow } from './webhook-outbox.js';

/**
 * The body of a message: Standard Webhooks' `{type, timestamp, data}`, the data being the
 * ids stored with the event plus links built from DOCWRIGHT_PUBLIC_URL. The same message
 * renders the same body on every attempt (the timestamp is when the change happened).
 */
export function renderPayload(row: Pick<MessageRow, 'event_type' | 'data' | 'occurred_at'>, publicUrl: string): string {
  const data = JSON.parse(row.data) as { projectId: string; jobId: string };
  const base = publicUrl.replace(/\/+$/, '');
  const links = {
    job: `${base}/v2/agent/${encodeURIComponent(data.projectId)}/job/${encodeURIComponent(data.jobId)}`,
    dashboard: `${base}/projects/${encodeURIComponent(data.projectId)}/jobs/${encodeURIComponent(data.jobId)}`,
  };
  return JSON.stringify({ type: row.event_type, timestamp: new Date(row.occurred_at).toISOString(), data: { ...data, links } });
}
