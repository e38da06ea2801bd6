import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Services } from '../app/services.js';
import { problemSchema } from '../app/problem.js';
import { badBody, csrfProblem, sessionStateSchema, setupBodySchema, signedInSchema, signInBodySchema } from './account-schemas.js';
import { registerOwnAccountRoutes } from './own-account-routes.js';
import { preSessionCsrfToken, preSessionId } from './pre-session-csrf.js';
import { newSecretToken } from './secret-token.js';
import { CSRF_COOKIE, clearSessionCookie, cookieName, cookieValue, setCsrfCookie, setSessionCookie } from './session-cookies.js';
import type { User } from './user.js';

const TAGS = ['session'];
const CSRF_NOTE = 'Needs X-CSRF-Token (from GET /v1/session) like every state-changing request of a browser.';

/**
 * Signs `user` in: a new session (replacing the browser's current one, so a session id
 * planted before sign-in is worthless after it), a new CSRF token, and a new pre-session
 * id, so the pre-sign-in token dies too.
 */
async function startSession(services: Services, request: FastifyRequest, reply: FastifyReply, user: User) {
  if (request.session) await services.sessions.end(request.session.id);
  const csrfToken = newSecretToken();
  const { secret } = await services.sessions.create(user.id, csrfToken);
  setSessionCookie(request, reply, secret);
  setCsrfCookie(request, reply, newSecretToken());
  reply.header('Cache-Control', 'no-store');
  return { user: { id: user.id, email: user.email, role: user.role, mustChangePassword: user.mustChangePassword }, csrfToken };
}

/** `/v1/session`: who is signed in, first-run setup, sign-in and sign-out. */
export function registerSessionRoutes(app: FastifyInstance, services: Services): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();

  routes.get(
    '/v1/session',
    {
      config: { access: 'public', duringPasswordChange: true },
      schema: {
        tags: TAGS,
        operationId: 'getSession',
        summary: "The signed-in user, whether setup is needed, and this browser's CSRF token",
        description:
          'Sets the dw_csrf cookie (a pre-session id; __Host-dw_csrf over https) when the browser has none; without a session csrfToken is its HMAC under the instance secret. Never fails for a missing or stale session: user is then null.',
        response: { 200: sessionStateSchema },
      },
    },
    async (request, reply) => {
      const session = request.session;
      const current = cookieValue(request, cookieName(request, CSRF_COOKIE));
      const id = preSessionId(current);
      if (current !== id) setCsrfCookie(request, reply, id);
      const csrfToken = session?.csrfToken ?? preSessionCsrfToken(services.config.secret, id);
      reply.header('Cache-Control', 'no-store');
      const user = session === null ? null : { ...session.user, mustChangePassword: session.user.mustChangePassword === true };
      return { setupRequired: await services.accounts.setupRequired(), user, csrfToken };
    },
  );

  routes.post(
    '/v1/session/setup',
    {
      config: { access: 'public', csrf: true, openapi: { responseHeaders: { 201: ['Location!'] } } },
      schema: {
        tags: TAGS,
        operationId: 'setUp',
        summary: 'Create the first admin with the setup token, and sign in',
        description: `Only while no user exists; the token is printed in the server log at start-up. Concurrent setups create exactly one admin. ${CSRF_NOTE}`,
        body: setupBodySchema,
        response: {
          201: signedInSchema,
          ...badBody,
          403: problemSchema.describe('invalid_setup_token, or csrf_failed.'),
          409: problemSchema.describe('setup_completed: a user exists already; sign in instead.'),
        },
      },
    },
    async (request, reply) => {
      const user = await services.accounts.setup(request.body);
      request.log.info({ userId: user.id }, 'first admin created by setup');
      return reply
        .status(201)
        .header('Location', '/v1/session')
        .send(await startSession(services, request, reply, user));
    },
  );

  routes.post(
    '/v1/session',
    {
      config: { access: 'public', csrf: true, duringPasswordChange: true },
      schema: {
        tags: TAGS,
        operationId: 'signIn',
        summary: 'Sign in with email and password',
        description: `Sets the dw_session cookie and a new CSRF token. After an admin's password reset, user.mustChangePassword is true and only POST /v1/session/password (and signing out) work until a new password is set. An unknown email and a wrong password get the same 401. Failed sign-ins are limited per client address and per email: 10 per 15 minutes, then 429 with Retry-After. ${CSRF_NOTE}`,
        body: signInBodySchema,
        response: {
          200: signedInSchema,
          ...badBody,
          401: problemSchema.describe('invalid_credentials: wrong email or password.'),
          ...csrfProblem,
          429: problemSchema.describe('rate_limited: too many failed sign-ins from this address or for this email; see Retry-After.'),
        },
      },
    },
    async (request, reply) => {
      const user = await services.accounts.verifyCredentials({ ...request.body, address: request.ip });
      return startSession(services, request, reply, user);
    },
  );

  routes.delete(
    '/v1/session',
    {
      config: { access: 'public', csrf: true, duringPasswordChange: true },
      schema: {
        tags: TAGS,
        operationId: 'signOut',
        summary: 'Sign out',
        description: `Ends the session in every process at once and clears the cookie. Signing out without a session is harmless (204). ${CSRF_NOTE}`,
        response: { 204: z.null().describe('Signed out.'), ...csrfProblem },
      },
    },
    async (request, reply) => {
      if (request.session) await services.sessions.end(request.session.id);
      clearSessionCookie(request, reply);
      return reply.status(204).send(null);
    },
  );

  registerOwnAccountRoutes(app, services);
}
