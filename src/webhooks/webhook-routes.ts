import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Services } from '../app/services.js';
import { problemSchema } from '../app/problem.js';
import { keyOrSessionSecurity, projectParamsSchema } from '../app/project-route-schemas.js';
import { messageFromRow } from './webhook-deliveries.js';
import { wakeWebhookWorkers } from './webhook-events.js';
import {
  badWebhookBody,
  createBodySchema,
  deliveriesQuerySchema,
  endpointParamsSchema,
  endpointSchema,
  endpointWithSecretSchema,
  messageDetailSchema,
  messageParamsSchema,
  messageSchema,
  rotateBodySchema,
  updateBodySchema,
  webhookProblems,
} from './webhook-schemas.js';

const tags = ['webhooks'];
const security = keyOrSessionSecurity;
const base = '/v1/projects/:projectId/webhooks';

/** A project's webhook endpoints and their delivery log (docs/webhooks.md): admin key or dashboard session. */
export function registerWebhookRoutes(app: FastifyInstance, services: Services): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();

  routes.get(
    base,
    {
      config: { access: 'admin' },
      schema: {
        operationId: 'listWebhooks',
        tags,
        summary: "List a project's webhook endpoints",
        security,
        params: projectParamsSchema,
        response: { 200: z.object({ webhooks: z.array(endpointSchema) }), ...webhookProblems },
      },
    },
    async (request) => ({ webhooks: await services.webhooks.list(request.params.projectId) }),
  );

  routes.post(
    base,
    {
      config: { access: 'admin', openapi: { responseHeaders: { 201: ['Location!'] } } },
      schema: {
        operationId: 'createWebhook',
        tags,
        summary: 'Create a webhook endpoint',
        description: 'The answer carries the signing secret once. At most 20 endpoints per project.',
        security,
        params: projectParamsSchema,
        body: createBodySchema,
        response: {
          201: endpointWithSecretSchema,
          ...badWebhookBody,
          ...webhookProblems,
          409: problemSchema.describe('webhook_limit_reached: the project has 20 endpoints.'),
        },
      },
    },
    async (request, reply) => {
      const { projectId } = request.params;
      const { endpoint, secret } = await services.webhooks.create(projectId, request.body);
      request.log.info({ projectId, webhookId: endpoint.id }, 'webhook endpoint created');
      return reply
        .status(201)
        .header('Cache-Control', 'no-store')
        .header('Location', `/v1/projects/${encodeURIComponent(projectId)}/webhooks/${encodeURIComponent(endpoint.id)}`)
        .send({ webhook: endpoint, secret });
    },
  );

  routes.get(
    `${base}/:webhookId`,
    {
      config: { access: 'admin' },
      schema: {
        operationId: 'getWebhook',
        tags,
        summary: 'Get a webhook endpoint',
        security,
        params: endpointParamsSchema,
        response: { 200: endpointSchema, ...webhookProblems },
      },
    },
    async (request) => services.webhooks.get(request.params.projectId, request.params.webhookId),
  );

  routes.patch(
    `${base}/:webhookId`,
    {
      config: { access: 'admin' },
      schema: {
        operationId: 'updateWebhook',
        tags,
        summary: 'Change a webhook endpoint (URL, description, events, enabled)',
        description: 'Disabling stops recording events for it; its undelivered messages fail with endpoint_disabled (redeliver them once enabled again).',
        security,
        params: endpointParamsSchema,
        body: updateBodySchema,
        response: { 200: endpointSchema, ...badWebhookBody, ...webhookProblems },
      },
    },
    async (request) => services.webhooks.update(request.params.projectId, request.params.webhookId, request.body),
  );

  routes.delete(
    `${base}/:webhookId`,
    {
      config: { access: 'admin' },
      schema: {
        operationId: 'deleteWebhook',
        tags,
        summary: 'Delete a webhook endpoint with its undelivered messages and delivery log',
        security,
        params: endpointParamsSchema,
        response: { 204: z.null().describe('Deleted.'), ...webhookProblems },
      },
    },
    async (request, reply) => {
      await services.webhooks.delete(request.params.projectId, request.params.webhookId);
      return reply.status(204).send(null);
    },
  );

  routes.post(
    `${base}/:webhookId/rotate-secret`,
    {
      config: { access: 'admin' },
      schema: {
        operationId: 'rotateWebhookSecret',
        tags,
        summary: "Rotate a webhook endpoint's signing secret",
        description:
          'Returns the new secret once. The previous one keeps signing (a second v1 signature in webhook-signature) until previousSecretExpiresAt, 24 hours by default.',
        security,
        params: endpointParamsSchema,
        body: rotateBodySchema,
        response: { 200: endpointWithSecretSchema, ...badWebhookBody, ...webhookProblems },
      },
    },
    async (request, reply) => {
      const { projectId, webhookId } = request.params;
      const overlapSeconds = request.body?.overlapSeconds;
      const { endpoint, secret } = await services.webhooks.rotateSecret(projectId, webhookId, overlapSeconds === undefined ? undefined : overlapSeconds * 1000);
      request.log.info({ projectId, webhookId }, 'webhook secret rotated');
      return reply.header('Cache-Control', 'no-store').send({ webhook: endpoint, secret });
    },
  );

  routes.get(
    `${base}/:webhookId/deliveries`,
    {
      config: { access: 'admin' },
      schema: {
        operationId: 'listWebhookDeliveries',
        tags,
        summary: "An endpoint's messages, newest first",
        security,
        params: endpointParamsSchema,
        querystring: deliveriesQuerySchema,
        response: { 200: z.object({ messages: z.array(messageSchema), hasMore: z.boolean() }), 400: problemSchema, ...webhookProblems },
      },
    },
    async (request) => {
      const { projectId, webhookId } = request.params;
      await services.webhooks.get(projectId, webhookId);
      return services.webhookDeliveries.list(webhookId, request.query);
    },
  );

  routes.get(
    `${base}/:webhookId/deliveries/:messageId`,
    {
      config: { access: 'admin' },
      schema: {
        operationId: 'getWebhookDelivery',
        tags,
        summary: 'A message with its payload and every attempt (status, duration, response code, truncated body)',
        security,
        params: messageParamsSchema,
        response: { 200: messageDetailSchema, ...webhookProblems },
      },
    },
    async (request) => {
      const { projectId, webhookId, messageId } = request.params;
      return services.webhookDeliveries.get(projectId, webhookId, messageId, services.config.publicUrl);
    },
  );

  routes.post(
    `${base}/:webhookId/deliveries/:messageId/redeliver`,
    {
      config: { access: 'admin' },
      schema: {
        operationId: 'redeliverWebhook',
        tags,
        summary: 'Send a message again, with the same webhook-id',
        description: 'The message becomes pending and a delivery worker is woken to send it at once; its retry schedule starts over.',
        security,
        params: messageParamsSchema,
        response: { 202: messageSchema, ...webhookProblems, 409: problemSchema.describe('delivery_in_progress: an attempt is under way.') },
      },
    },
    async (request, reply) => {
      const { projectId, webhookId, messageId } = request.params;
      const row = await services.webhookOutbox.redeliver(projectId, webhookId, messageId);
      await wakeWebhookWorkers(services.notifier);
      return reply.status(202).send(messageFromRow(row));
    },
  );
}
