import type { FastifyInstance, FastifyRequest } from 'fastify';
import { DocwrightError, notFound, unauthorized } from '../core/errors.js';
import type { ApiKeyService } from '../keys/api-key-service.js';
import type { Principal } from '../keys/api-key.js';

/**
 * Which keys a route accepts. `ingest` routes accept admin keys too. `session` routes are
 * for signed-in people only (no key): their handlers check `signedInUser(request)`.
 */
export type RouteAccess = 'public' | 'admin' | 'ingest' | 'session';

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: RouteAccess;
  }
  interface FastifyRequest {
    principal: Principal | null;
  }
}

const BEARER = /^Bearer[ ]+([^\s]+)[ ]*$/i;

/**
 * Runs on onRequest, before the body is read or validated: an unauthenticated caller
 * costs no parsing, and can never spend a project's rate-limit budget (which is charged
 * later, after validation).
 */
export function installAuthentication(app: FastifyInstance, keys: ApiKeyService): void {
  app.decorateRequest('principal', null);
  // Callback style: a key verified moments ago (every poll after the first) answers
  // without a promise; only a cache miss waits for the store.
  app.addHook('onRequest', (request: FastifyRequest, _reply, done) => {
    const access = request.routeOptions.config.access ?? 'public';
    // A session route's handler refuses whoever is not signed in (src/app/signed-in-user.ts).
    if (access === 'public' || access === 'session') return done();
    const match = BEARER.exec(request.headers.authorization ?? '');
    if (!match) return done(unauthorized());
    const presented = match[1]!;
    const known = keys.authenticateFromCache(presented);
    if (known !== undefined) return admit(request, access, known, done);
    keys.authenticate(presented).then((principal) => admit(request, access, principal, done), done);
  });
}

function admit(request: FastifyRequest, access: RouteAccess, principal: Principal | null, done: (error?: Error) => void): void {
  try {
    request.principal = authorize(request, access, principal);
  } catch (error) {
    return done(error as Error);
  }
  done();
}

function authorize(request: FastifyRequest, access: RouteAccess, principal: Principal | null): Principal {
  if (!principal) throw unauthorized();
  const projectId = (request.params as { projectId?: string } | undefined)?.projectId;
  // Another project's key learns nothing about this project's existence: same 404 as an unknown id.
  if (projectId !== undefined && projectId !== principal.projectId) throw notFound(`No project with id "${projectId}".`);
  if (access === 'admin' && principal.scope !== 'admin') {
    throw new DocwrightError('forbidden', 'This key has the ingest scope, which only allows sending analytics events; use an admin key.', {
      status: 403,
    });
  }
  return principal;
}
