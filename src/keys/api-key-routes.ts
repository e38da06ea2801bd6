import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Services } from '../app/services.js';
import { problemSchema } from '../app/problem.js';
import { notFound } from '../core/errors.js';
import { badBody, sessionProblems } from '../accounts/account-schemas.js';
import { projectParamsSchema } from '../app/project-route-schemas.js';
import { KEY_SCOPES, type KeyScope } from './api-key-format.js';

const TAGS = ['api keys'];
const security = [{ cookieAuth: [] }];

export const apiKeyInfoSchema = z
  .object({
    id: z.string(),
    projectId: z.string(),
    scope: z.enum(KEY_SCOPES as [KeyScope, ...KeyScope[]]),
    name: z.string().nullable(),
    hint: z.string().describe('The prefix and last four characters, e.g. dw_admin_…x9Qa; never the key.'),
    createdAt: z.string(),
    expiresAt: z.string().nullable(),
    lastUsedAt: z.string().nullable().describe('Updated at most once a minute.'),
    revokedAt: z.string().nullable(),
  })
  .meta({ id: 'ApiKeyInfo' });

const newKeyBodySchema = z
  .object({
    scope: z.enum(KEY_SCOPES as [KeyScope, ...KeyScope[]]).describe('admin: the whole API of the project; ingest: analytics ingestion only.'),
    name: z.string().trim().min(1).max(100),
    expiresAt: z.iso.datetime({ offset: true }).optional().describe('ISO 8601, in the future; omitted: never expires.'),
  })
  .strict();

const keyParamsSchema = projectParamsSchema.extend({ keyId: z.string().min(1).max(100) });
const notFoundProblem = { 404: problemSchema.describe('No such project, or no such key in it.') };

/** A project's API keys, managed from the dashboard by admins. */
export function registerApiKeyRoutes(app: FastifyInstance, services: Services): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();

  routes.get(
    '/v1/projects/:projectId/keys',
    {
      config: { access: 'session-admin' },
      schema: {
        tags: TAGS,
        operationId: 'listApiKeys',
        summary: "List a project's API keys (admins only)",
        description: 'Oldest first, revoked ones included. Shows hints only, never the keys.',
        security,
        params: projectParamsSchema,
        response: { 200: z.object({ keys: z.array(apiKeyInfoSchema) }), ...sessionProblems, ...notFoundProblem },
      },
    },
    async (request) => ({ keys: await services.keys.list(request.params.projectId) }),
  );

  routes.post(
    '/v1/projects/:projectId/keys',
    {
      config: { access: 'session-admin', openapi: { responseHeaders: { 201: ['Location!'] } } },
      schema: {
        tags: TAGS,
        operationId: 'createApiKey',
        summary: 'Create an API key (admins only)',
        description: 'The answer carries the key (secret) once; only its SHA-256 is stored. Needs X-CSRF-Token.',
        security,
        params: projectParamsSchema,
        body: newKeyBodySchema,
        response: {
          201: z.object({ key: apiKeyInfoSchema, secret: z.string().describe('The key itself: shown this once.') }),
          ...badBody,
          ...sessionProblems,
          ...notFoundProblem,
        },
      },
    },
    async (request, reply) => {
      const { projectId } = request.params;
      const { scope, name, expiresAt } = request.body;
      const created = await services.keys.create({ projectId, scope, name, expiresAt: expiresAt === undefined ? null : Date.parse(expiresAt) });
      const key = await services.keys.find(created.id);
      if (key === null) throw notFound(`No API key with id "${created.id}".`);
      request.log.info({ projectId, keyId: key.id, scope, by: request.user?.id }, 'API key created');
      reply.header('Cache-Control', 'no-store');
      return reply
        .status(201)
        .header('Location', `/v1/projects/${encodeURIComponent(projectId)}/keys/${encodeURIComponent(key.id)}`)
        .send({ key, secret: created.key });
    },
  );

  routes.delete(
    '/v1/projects/:projectId/keys/:keyId',
    {
      config: { access: 'session-admin' },
      schema: {
        tags: TAGS,
        operationId: 'revokeApiKey',
        summary: 'Revoke an API key (admins only)',
        description: 'Every server process refuses the key from the next request on (401). Revoking twice is harmless. Needs X-CSRF-Token.',
        security,
        params: keyParamsSchema,
        response: { 204: z.null().describe('Revoked.'), ...sessionProblems, ...notFoundProblem },
      },
    },
    async (request, reply) => {
      const { projectId, keyId } = request.params;
      const key = await services.keys.find(keyId);
      if (key?.projectId !== projectId) throw notFound(`No API key with id "${keyId}" in this project.`);
      await services.keys.revoke(keyId);
      request.log.info({ projectId, keyId, by: request.user?.id }, 'API key revoked');
      return reply.status(204).send(null);
    },
  );
}
