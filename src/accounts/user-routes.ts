import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Services } from '../app/services.js';
import { problemSchema } from '../app/problem.js';
import { requireUser } from '../app/authenticate.js';
import { badBody, newUserBodySchema, sessionProblems, userParamsSchema, userSchema } from './account-schemas.js';

const TAGS = ['users'];
const security = [{ cookieAuth: [] }];

/** `/v1/users`: admins manage dashboard accounts. */
export function registerUserRoutes(app: FastifyInstance, services: Services): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();

  routes.get(
    '/v1/users',
    {
      config: { access: 'session-admin' },
      schema: {
        operationId: 'listUsers',
        tags: TAGS,
        summary: 'List users (admins only)',
        security,
        response: { 200: z.object({ users: z.array(userSchema) }), ...sessionProblems },
      },
    },
    async () => ({ users: await services.accounts.listUsers() }),
  );

  routes.post(
    '/v1/users',
    {
      config: { access: 'session-admin', openapi: { responseHeaders: { 201: ['Location!'] } } },
      schema: {
        tags: TAGS,
        operationId: 'createUser',
        summary: 'Create a user (admins only)',
        description: 'role defaults to member. Needs X-CSRF-Token.',
        security,
        body: newUserBodySchema,
        response: { 201: userSchema, ...badBody, ...sessionProblems, 409: problemSchema.describe('email_taken: a user with this email exists.') },
      },
    },
    async (request, reply) => {
      const user = await services.accounts.createUser(request.body);
      request.log.info({ userId: user.id, role: user.role, by: request.user?.id }, 'user created');
      return reply
        .status(201)
        .header('Location', `/v1/users/${encodeURIComponent(user.id)}`)
        .send(user);
    },
  );

  routes.delete(
    '/v1/users/:userId',
    {
      config: { access: 'session-admin' },
      schema: {
        tags: TAGS,
        operationId: 'deleteUser',
        summary: 'Delete a user (admins only)',
        description: 'Their sessions end at once. You cannot delete yourself. Needs X-CSRF-Token.',
        security,
        params: userParamsSchema,
        response: {
          204: z.null().describe('Deleted.'),
          ...sessionProblems,
          404: problemSchema.describe('No such user.'),
          409: problemSchema.describe('cannot_delete_self.'),
        },
      },
    },
    async (request, reply) => {
      await services.accounts.deleteUser(request.params.userId, requireUser(request).id);
      request.log.info({ userId: request.params.userId, by: request.user?.id }, 'user deleted');
      return reply.status(204).send(null);
    },
  );
}
