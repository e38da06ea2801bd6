import type { FastifyInstance, FastifyRequest } from 'fastify';
import { DocwrightError, notFound, unauthorized } from '../core/errors.js';
import type { ApiKeyService } from '../keys/api-key-service.js';
import type { Principal } from '../keys/api-key.js';

/** Which keys a route accepts. `ingest` routes accept admin keys too. */
export type RouteAccess = 'public' | 'admin' | 'ingest';

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
  app.addHook('onRequest', async (request: FastifyRequest) => {
    const access = request.routeOptions.config.access ?? 'public';
    if (access === 'public') return;
    const match = BEARER.exec(request.headers.authorization ?? '');
    if (!match) throw unauthorized();
    const principal = await keys.authenticate(match[1]!);
    if (!principal) throw unauthorized();
    const projectId = (request.params as { projectId?: string } | undefined)?.projectId;
    // Another project's key learns nothing about this project's existence: same 404 as an unknown id.
    if (projectId !== undefined && projectId !== principal.projectId) throw notFound(`No project with id "${projectId}".`);
    if (access === 'admin' && principal.scope !== 'admin') {
      throw new DocwrightError('forbidden', 'This key has the ingest scope, which only allows sending analytics events; use an admin key.', {
        status: 403,
      });
    }
    request.principal = principal;
  });
}
