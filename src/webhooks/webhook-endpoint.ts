import type { WebhookEndpointsTable } from '../db/schema.js';
import type { WebhookEventType } from './webhook-events.js';

/** A webhook endpoint as the API shows it: never its secret. */
export interface WebhookEndpoint {
  id: string;
  projectId: string;
  url: string;
  description: string;
  /** Empty: every event. */
  events: WebhookEventType[];
  enabled: boolean;
  /** While a rotation's overlap lasts, the previous secret signs too, until then. */
  previousSecretExpiresAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export function endpointFromRow(row: WebhookEndpointsTable, now: number): WebhookEndpoint {
  const previousValid = row.previous_secret_expires_at !== null && row.previous_secret_expires_at > now;
  return {
    id: row.id,
    projectId: row.project_id,
    url: row.url,
    description: row.description,
    events: JSON.parse(row.events) as WebhookEventType[],
    enabled: row.enabled === 1,
    previousSecretExpiresAt: previousValid ? new Date(row.previous_secret_expires_at!).toISOString() : null,
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}
