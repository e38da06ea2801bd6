import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Services } from '../app/services.js';
import { problemSchema } from '../app/problem.js';
import { requireUser } from '../app/authenticate.js';
import { badBody, newUserBodySchema, passwordResetSchema, roleBodySchema, sessionProblems, userParamsSchema, userSchema } from './account-schemas.js';

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

  routes.patch(
    '/v1/users/:userId',
    {
      config: { access: 'session-admin' },
      schema: {
        tags: TAGS,
        operationId: 'updateUser',
        summary: "Change a user's role (admins only)",
        description: "The user's sessions carry the new role from their next request on. The only admin cannot be made a member. Needs X-CSRF-Token.",
        security,
        params: userParamsSchema,
        body: roleBodySchema,
        response: {
          200: userSchema,
          ...badBody,
          ...sessionProblems,
          404: problemSchema.describe('No such user.'),
          409: problemSchema.describe('last_admin: this is the only admin; make another user admin first.'),
        },
      },
    },
    async (request) => {
      const user = await services.accounts.setRole(request.params.userId, request.body.role);
      request.log.info({ userId: user.id, role: user.role, by: request.user?.id }, 'user role changed');
      return user;
    },
  );

  routes.post(
    '/v1/users/:userId/password-reset',
    {
      config: { access: 'session-admin' },
      schema: {
        tags: TAGS,
        operationId: 'resetUserPassword',
        summary: "Reset another user's password (admins only)",
        description:
          "Sets a generated temporary password, returned once, and ends all of the user's sessions. At their next sign-in the user must set a new password (POST /v1/session/password) before any other route works (403 password_change_required). Not for yourself: change your own password instead. Needs X-CSRF-Token.",
        security,
        params: userParamsSchema,
        response: {
          200: passwordResetSchema,
          ...sessionProblems,
          404: problemSchema.describe('No such user.'),
          409: problemSchema.describe('cannot_reset_self.'),
        },
      },
    },
    async (request, reply) => {
      const reset = await services.accounts.resetPassword(request.params.userId, requireUser(request).id);
      request.log.info({ userId: reset.user.id, by: request.user?.id }, 'user password reset');
      reply.header('Cache-Control', 'no-store');
      return reset;
    },
  );
}
