import type { FastifyInstance, FastifyRequest } from 'fastify';
import { DocwrightError, notFound, unauthorized } from '../core/errors.js';
import type { ApiKeyService } from '../keys/api-key-service.js';
import type { KeyPrincipal, Principal } from '../keys/api-key.js';
import type { ProjectRepository } from '../projects/project-repository.js';
import type { ActiveSession, SessionStore } from '../accounts/session-store.js';
import type { SignedInUser } from '../accounts/user.js';
import { CSRF_COOKIE, CSRF_HEADER, SESSION_COOKIE, cookieName, cookieValue } from '../accounts/session-cookies.js';
import { preSessionCsrfMatches } from '../accounts/pre-session-csrf.js';
import { SECRET_TOKEN_PATTERN, tokensEqual } from '../accounts/secret-token.js';

/**
 * Who may call a route:
 * - `public`: anyone (a signed-in user is still recognised: `request.user`);
 * - `admin`: an admin key of the route's project, or any signed-in user (any project);
 * - `ingest`: like admin, and ingest keys too;
 * - `session`: any signed-in user, no keys;
 * - `session-admin`: a signed-in admin, no keys.
 */
export type RouteAccess = 'public' | 'admin' | 'ingest' | 'session' | 'session-admin';

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: RouteAccess;
    /**
     * The CSRF check of unsafe methods. Unset: whenever the request carries cookies (a
     * request without any has no ambient credential to abuse). true: always, cookies or
     * not (sign-in, setup, sign-out: a page must not sign a browser in or out). false:
     * never, for routes that act on no cookie credential (the page beacon, cross-site by design).
     */
    csrf?: boolean;
    /**
     * true: open to a user who must set a new password after an admin's reset (reading the
     * session, signing in and out, changing the password). Every other route answers them
     * 403 `password_change_required`, public ones treat them as signed out.
     */
    duringPasswordChange?: boolean;
  }
  interface FastifyRequest {
    principal: Principal | null;
    /**
     * The signed-in user of a request with a valid session cookie, on every route, public
     * ones included; null otherwise, and on key routes when the request sends `Authorization`
     * (the key alone decides those).
     */
    user: SignedInUser | null;
    session: ActiveSession | null;
  }
}

export interface AuthenticationDependencies {
  keys: ApiKeyService;
  sessions: SessionStore;
  projects: ProjectRepository;
  /** Keys the pre-session CSRF token (pre-session-csrf.ts). */
  instanceSecret: string;
}

const BEARER = /^Bearer[ ]+([^\s]+)[ ]*$/i;
const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export const csrfFailed = (): DocwrightError =>
  new DocwrightError('csrf_failed', "The X-CSRF-Token header is missing or does not match this browser's token; get one from GET /v1/session.", {
    status: 403,
  });

export const signInRequired = (): DocwrightError =>
  new DocwrightError('sign_in_required', 'Sign in first: this endpoint needs a dashboard session.', { status: 401 });

const adminRequired = (): DocwrightError => new DocwrightError('forbidden', 'Only admins may do this.', { status: 403 });

const passwordChangeRequired = (): DocwrightError =>
  new DocwrightError('password_change_required', 'An admin reset your password: set a new one (POST /v1/session/password) before anything else.', {
    status: 403,
  });

/**
 * Runs on onRequest, before the body is read or validated: an unauthenticated caller
 * costs no parsing, and can never spend a project's rate-limit budget (which is charged
 * later, after validation).
 *
 * A request that presents `Authorization` on a key route is authenticated by the key
 * alone, exactly as before sessions existed; it needs no CSRF token (a browser never adds
 * that header cross-site on its own) and its cookies are not looked at. Every other
 * request is a browser's: its session cookie, if valid, makes `request.user`, and its
 * unsafe methods need the CSRF token.
 */
export function installAuthentication(app: FastifyInstance, dependencies: AuthenticationDependencies): void {
  const { keys } = dependencies;
  app.decorateRequest('principal', null);
  app.decorateRequest('user', null);
  app.decorateRequest('session', null);
  // Callback style: a key verified moments ago (every poll after the first) answers
  // without a promise; only a cache miss waits for the store.
  app.addHook('onRequest', (request: FastifyRequest, _reply, done) => {
    const access = request.routeOptions.config.access ?? 'public';
    const keyRoute = access === 'admin' || access === 'ingest';
    if (keyRoute && request.headers.authorization !== undefined) {
      const match = BEARER.exec(request.headers.authorization);
      if (!match) return done(unauthorized());
      const presented = match[1]!;
      const known = keys.authenticateFromCache(presented);
      if (known !== undefined) return admitKey(request, access, known, done);
      keys.authenticate(presented).then((principal) => admitKey(request, access, principal, done), done);
      return;
    }
    // No cookie at all: nothing to look up (the beacon, health probes, key-less API calls).
    if (request.headers.cookie === undefined) {
      try {
        checkBrowserRequest(request, access, null, false, dependencies.instanceSecret);
      } catch (error) {
        return done(error as Error);
      }
      return done();
    }
    admitBrowser(request, access, dependencies).then(() => done(), done);
  });
}

function admitKey(request: FastifyRequest, access: RouteAccess, principal: KeyPrincipal | null, done: (error?: Error) => void): void {
  try {
    request.principal = authorizeKey(request, access, principal);
  } catch (error) {
    return done(error as Error);
  }
  done();
}

function authorizeKey(request: FastifyRequest, access: RouteAccess, principal: KeyPrincipal | null): KeyPrincipal {
  if (!principal) throw unauthorized();
  const projectId = routeProjectId(request);
  // Another project's key learns nothing about this project's existence: same 404 as an unknown id.
  if (projectId !== undefined && projectId !== principal.projectId) throw notFound(`No project with id "${projectId}".`);
  if (access === 'admin' && principal.scope !== 'admin') {
    throw new DocwrightError('forbidden', 'This key has the ingest scope, which only allows sending analytics events; use an admin key.', {
      status: 403,
    });
  }
  return principal;
}

async function admitBrowser(request: FastifyRequest, access: RouteAccess, dependencies: AuthenticationDependencies): Promise<void> {
  const secret = cookieValue(request, cookieName(request, SESSION_COOKIE));
  const found = secret === undefined ? null : await dependencies.sessions.authenticate(secret);
  const limited = found?.user.mustChangePassword === true && request.routeOptions.config.duringPasswordChange !== true;
  // Until the new password is set, a public route sees a signed-out browser (a share-token
  // page shows no more than to anyone), and every other route refuses below.
  const session = limited && access === 'public' ? null : found;
  if (session !== null) {
    request.session = session;
    request.user = session.user;
  }
  checkBrowserRequest(request, access, session, true, dependencies.instanceSecret);
  if (limited && session !== null) throw passwordChangeRequired();
  if (session === null || access === 'public') return;
  // Keys open their own project only; users open any project that exists. Unknown ids get
  // the usual 404 before the handler runs.
  const projectId = routeProjectId(request);
  if (projectId !== undefined && (await dependencies.projects.find(projectId)) === null) throw notFound(`No project with id "${projectId}".`);
  request.principal = { kind: 'user', userId: session.user.id, role: session.user.role, sessionId: session.id };
}

/** Access and CSRF rules for a request without an API key, in the order a client can act on them. */
function checkBrowserRequest(request: FastifyRequest, access: RouteAccess, session: ActiveSession | null, hasCookies: boolean, instanceSecret: string): void {
  if (session === null && access !== 'public') throw access === 'admin' || access === 'ingest' ? unauthorized() : signInRequired();
  if (needsCsrfToken(request, hasCookies) && !csrfTokenMatches(request, session, instanceSecret)) throw csrfFailed();
  if (access === 'session-admin' && session?.user.role !== 'admin') throw adminRequired();
}

function needsCsrfToken(request: FastifyRequest, hasCookies: boolean): boolean {
  // An unknown route gets its 404, not a CSRF refusal: it would do nothing either way.
  if (!UNSAFE_METHODS.has(request.method) || request.is404) return false;
  const setting = request.routeOptions.config.csrf;
  return setting ?? hasCookies;
}

/**
 * The header must equal the token bound to this browser: the session's (rotated at each
 * sign-in) when signed in, else the HMAC of the dw_csrf cookie's pre-session id (so a
 * planted cookie with a token of the planter's choosing fails). A cross-site page can make
 * the browser send the cookies but can neither read the token nor set the header.
 */
function csrfTokenMatches(request: FastifyRequest, session: ActiveSession | null, instanceSecret: string): boolean {
  const header = request.headers[CSRF_HEADER];
  if (typeof header !== 'string' || !SECRET_TOKEN_PATTERN.test(header)) return false;
  if (session !== null) return tokensEqual(header, session.csrfToken);
  return preSessionCsrfMatches(instanceSecret, cookieValue(request, cookieName(request, CSRF_COOKIE)), header);
}

function routeProjectId(request: FastifyRequest): string | undefined {
  return (request.params as { projectId?: string } | undefined)?.projectId;
}

/** The signed-in user of a `session` or `session-admin` route (the hook guarantees one). */
export function requireUser(request: FastifyRequest): SignedInUser {
  if (request.user === null) throw signInRequired();
  return request.user;
}

/** The project a request acts for: a key's own, or the path's for a signed-in user. */
export function principalProjectId(request: FastifyRequest): string | undefined {
  const principal = request.principal;
  if (principal === null) return undefined;
  return principal.kind === 'key' ? principal.projectId : routeProjectId(request);
}
