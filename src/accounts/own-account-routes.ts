import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Services } from '../app/services.js';
import { problemSchema } from '../app/problem.js';
import { signInRequired } from '../app/authenticate.js';
import { changePasswordBodySchema, sessionProblems } from './account-schemas.js';
import { clearSessionCookie } from './session-cookies.js';

const TAGS = ['session'];
const security = [{ cookieAuth: [] }];

/** The signed-in user's own account: a new password, and signing out everywhere. */
export function registerOwnAccountRoutes(app: FastifyInstance, services: Services): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();

  routes.post(
    '/v1/session/password',
    {
      config: { access: 'session', duringPasswordChange: true },
      schema: {
        tags: TAGS,
        operationId: 'changePassword',
        summary: 'Change your password',
        description:
          'Needs the current password (after an admin reset: the temporary one), checked under the sign-in limit (10 failures per 15 minutes per address and per email, then 429). Ends every other session of yours; this one stays and is no longer limited to this route. Needs X-CSRF-Token.',
        security,
        body: changePasswordBodySchema,
        response: {
          204: z.null().describe('Changed.'),
          400: problemSchema.describe('validation_failed (errors[] lists the fields), or password_unchanged: the new password is the current one.'),
          401: sessionProblems[401],
          403: problemSchema.describe('invalid_current_password, or csrf_failed.'),
          429: problemSchema.describe('rate_limited: too many wrong passwords from this address or for this account; see Retry-After.'),
        },
      },
    },
    async (request, reply) => {
      const session = request.session;
      if (session === null) throw signInRequired();
      const user = session.user;
      await services.accounts.changePassword({
        userId: user.id,
        keepSessionId: session.id,
        currentPassword: request.body.currentPassword,
        newPassword: request.body.newPassword,
        address: request.ip,
      });
      request.log.info({ userId: user.id }, 'password changed');
      reply.header('Cache-Control', 'no-store');
      return reply.status(204).send(null);
    },
  );

  routes.delete(
    '/v1/session/everywhere',
    {
      config: { access: 'session', duringPasswordChange: true },
      schema: {
        tags: TAGS,
        operationId: 'signOutEverywhere',
        summary: 'Sign out everywhere',
        description: 'Ends every session of yours, this one included, in every process at once, and clears the cookie. Needs X-CSRF-Token.',
        security,
        response: { 204: z.null().describe('Signed out everywhere.'), ...sessionProblems },
      },
    },
    async (request, reply) => {
      const session = request.session;
      if (session === null) throw signInRequired();
      const user = session.user;
      await services.accounts.endAllSessions(user.id);
      request.log.info({ userId: user.id }, 'signed out everywhere');
      clearSessionCookie(request, reply);
      return reply.status(204).send(null);
    },
  );
}
