import { z } from 'zod';
import { problemSchema } from '../app/problem.js';
import { authProblems, projectParamsSchema } from '../app/project-route-schemas.js';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from './webhook-events.js';

const eventTypeSchema = z.enum(WEBHOOK_EVENT_TYPES as unknown as [WebhookEventType, ...WebhookEventType[]]);

export const endpointSchema = z
  .object({
    id: z.string(),
    projectId: z.string(),
    url: z.string(),
    description: z.string(),
    events: z.array(eventTypeSchema).describe('The events sent to this endpoint; empty: every event.'),
    enabled: z.boolean(),
    previousSecretExpiresAt: z.string().nullable().describe('During a rotation: until when the previous secret also signs (a second v1 signature).'),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'WebhookEndpoint' });

export const endpointWithSecretSchema = z.object({
  webhook: endpointSchema,
  secret: z.string().describe('whsec_ + base64: the signing secret, shown this once; only an encrypted copy is stored.'),
});

const url = z
  .string()
  .trim()
  .min(1)
  .max(2_048)
  .describe('https:// (http:// only when DOCWRIGHT_WEBHOOK_ALLOW_HTTP=on); no private, loopback or link-local address.');
const description = z.string().trim().max(200);
const events = z.array(eventTypeSchema).max(WEBHOOK_EVENT_TYPES.length);

export const createBodySchema = z.object({ url, description: description.optional(), events: events.optional(), enabled: z.boolean().optional() }).strict();
export const updateBodySchema = z
  .object({ url: url.optional(), description: description.optional(), events: events.optional(), enabled: z.boolean().optional() })
  .strict();
export const rotateBodySchema = z
  .object({
    overlapSeconds: z
      .number()
      .int()
      .min(0)
      .max(30 * 86_400)
      .optional()
      .describe('How long the previous secret keeps signing; default DOCWRIGHT_WEBHOOK_SECRET_OVERLAP_HOURS (24 h). 0 ends it now.'),
  })
  .strict()
  .optional();

export const endpointParamsSchema = projectParamsSchema.extend({ webhookId: z.string().min(1).max(100) });
export const messageParamsSchema = endpointParamsSchema.extend({ messageId: z.string().min(1).max(100) });

const messageStatus = z.enum(['pending', 'succeeded', 'failed']);
export const messageSchema = z
  .object({
    id: z.string().describe('The webhook-id header of every attempt of this message.'),
    endpointId: z.string(),
    eventType: eventTypeSchema,
    status: messageStatus,
    attempts: z.number().int(),
    nextAttemptAt: z.string().nullable(),
    lastError: z.string().nullable(),
    createdAt: z.string(),
    finishedAt: z.string().nullable(),
  })
  .meta({ id: 'WebhookMessage' });

export const attemptSchema = z.object({
  attempt: z.number().int(),
  trigger: z.enum(['scheduled', 'manual']),
  startedAt: z.string(),
  durationMs: z.number().int(),
  outcome: z.enum(['succeeded', 'failed']),
  responseStatus: z.number().int().nullable(),
  responseBody: z.string().nullable().describe('The first 1,024 characters of the answer.'),
  errorCode: z
    .string()
    .nullable()
    .describe('address_refused, connect_timeout, timeout, connection_failed, certificate_invalid, http_status, redirect_not_followed, endpoint_disabled.'),
  errorMessage: z.string().nullable(),
});

export const messageDetailSchema = messageSchema.extend({
  payload: z.unknown().describe('The body every attempt sends: {type, timestamp, data}.'),
  attemptLog: z.array(attemptSchema),
});

export const deliveriesQuerySchema = z.object({
  status: messageStatus.optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  offset: z.coerce.number().int().min(0).max(100_000).default(0),
});

export const webhookProblems = {
  ...authProblems,
  404: problemSchema.describe('Unknown project (or one the key does not grant), webhook endpoint or message.'),
};
export const badWebhookBody = {
  400: problemSchema.describe('validation_failed (errors[] lists the fields), webhook_url_invalid, or webhook_url_refused (not https, or a refused address).'),
};
