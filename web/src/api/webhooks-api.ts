import type { components, operations } from '../../../packages/sdk/src/schema';
import { api, enc, query } from './client';

// The shapes come from the OpenAPI document's generated types (type-only: nothing of the SDK
// is bundled), so a change to the webhook API fails `tsc -p web` here instead of drifting.
export type WebhookEndpoint = components['schemas']['WebhookEndpoint'];
export type WebhookMessage = components['schemas']['WebhookMessage'];
export type WebhookEvent = WebhookMessage['eventType'];
export type DeliveryStatus = WebhookMessage['status'];
/** A create or rotate answer: the signing secret appears in it once. */
export type WebhookWithSecret = operations['createWebhook']['responses'][201]['content']['application/json'];
export type WebhookMessageDetail = operations['getWebhookDelivery']['responses'][200]['content']['application/json'];
export type WebhookAttempt = WebhookMessageDetail['attemptLog'][number];

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
