import { api, enc, query } from './client';

/** The seven event types of docs/webhooks.md, in the order the API lists them. */
export const WEBHOOK_EVENTS = [
  'job.completed',
  'job.failed',
  'job.archived',
  'job.cancelled',
  'pull_request.opened',
  'pull_request.updated',
  'pull_request.merged',
] as const;
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

export interface WebhookEndpoint {
  id: string;
  projectId: string;
  url: string;
  description: string;
  /** Empty: every event. */
  events: WebhookEvent[];
  enabled: boolean;
  /** While a rotation's overlap lasts: until when the previous secret also signs. */
  previousSecretExpiresAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** A create or rotate answer: the signing secret appears in it once. */
export interface WebhookWithSecret {
  webhook: WebhookEndpoint;
  secret: string;
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface WebhookMessage {
  id: string;
  endpointId: string;
  eventType: WebhookEvent;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: string | null;
  lastError: string | null;
  createdAt: string;
  finishedAt: string | null;
}

export interface WebhookAttempt {
  attempt: number;
  trigger: 'scheduled' | 'manual';
  startedAt: string;
  durationMs: number;
  outcome: 'succeeded' | 'failed';
  responseStatus: number | null;
  responseBody: string | null;
  errorCode: string | null;
  errorMessage: string | null;
}

export interface WebhookMessageDetail extends WebhookMessage {
  payload: unknown;
  attemptLog: WebhookAttempt[];
}

export interface WebhookInput {
  url: string;
  description?: string;
  events: WebhookEvent[];
  enabled: boolean;
}

const base = (projectId: string) => `/v1/projects/${enc(projectId)}/webhooks`;
const one = (projectId: string, webhookId: string) => `${base(projectId)}/${enc(webhookId)}`;

export const webhooksApi = {
  list: async (projectId: string, signal?: AbortSignal) => (await api.get<{ webhooks: WebhookEndpoint[] }>(base(projectId), { signal })).webhooks,
  get: (projectId: string, webhookId: string, signal?: AbortSignal) => api.get<WebhookEndpoint>(one(projectId, webhookId), { signal }),
  create: (projectId: string, input: WebhookInput) => api.post<WebhookWithSecret>(base(projectId), input),
  update: (projectId: string, webhookId: string, patch: Partial<WebhookInput>) => api.patch<WebhookEndpoint>(one(projectId, webhookId), patch),
  remove: (projectId: string, webhookId: string) => api.delete(one(projectId, webhookId)),
  rotateSecret: (projectId: string, webhookId: string) => api.post<WebhookWithSecret>(`${one(projectId, webhookId)}/rotate-secret`),
  deliveries: (projectId: string, webhookId: string, params: { status?: DeliveryStatus | undefined; limit: number; offset: number }, signal?: AbortSignal) =>
    api.get<{ messages: WebhookMessage[]; hasMore: boolean }>(`${one(projectId, webhookId)}/deliveries${query(params)}`, { signal }),
  delivery: (projectId: string, webhookId: string, messageId: string, signal?: AbortSignal) =>
    api.get<WebhookMessageDetail>(`${one(projectId, webhookId)}/deliveries/${enc(messageId)}`, { signal }),
  redeliver: (projectId: string, webhookId: string, messageId: string) =>
    api.post<WebhookMessage>(`${one(projectId, webhookId)}/deliveries/${enc(messageId)}/redeliver`),
};
