import type { FastifyReply, FastifyRequest } from 'fastify';
import { SESSION_MAX_MS } from './session-store.js';

export const SESSION_COOKIE = 'dw_session';
/** Holds the pre-session id whose HMAC is the CSRF token before sign-in (pre-session-csrf.ts). */
export const CSRF_COOKIE = 'dw_csrf';
export const CSRF_HEADER = 'x-csrf-token';

/**
 * A cookie's name for this request. Over https it carries the `__Host-` prefix: browsers
 * accept such a cookie only with Secure, Path=/ and no Domain, so no other host (a sibling
 * subdomain included) can set or overwrite it. Only the prefixed name is read over https,
 * so an unprefixed cookie planted by a sibling is ignored. Plain http (local development)
 * keeps the bare names, since browsers refuse `__Host-` cookies without Secure.
 */
export function cookieName(request: FastifyRequest, name: typeof SESSION_COOKIE | typeof CSRF_COOKIE): string {
  return request.protocol === 'https' ? `__Host-${name}` : name;
}

/**
 * HttpOnly (no script reads either cookie: the CSRF token reaches the page in GET
 * /v1/session's body), SameSite=Lax (not sent on cross-site POSTs and subresource loads),
 * Secure when the request came over https, directly or through a trusted proxy
 * (request.protocol reads X-Forwarded-Proto only from DOCWRIGHT_TRUST_PROXY's proxies).
 */
function attributes(request: FastifyRequest, maxAgeSeconds: number) {
  return { httpOnly: true, sameSite: 'lax' as const, path: '/', secure: request.protocol === 'https', maxAge: maxAgeSeconds };
}

/** The session cookie lives as long as the longest session; the server enforces the idle limit. */
export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, secret: string): void {
  reply.setCookie(cookieName(request, SESSION_COOKIE), secret, attributes(request, Math.floor(SESSION_MAX_MS / 1000)));
}

/** The pre-session cookie outlives sessions: it protects sign-in and setup, before any session. */
export function setCsrfCookie(request: FastifyRequest, reply: FastifyReply, preSessionId: string): void {
  reply.setCookie(cookieName(request, CSRF_COOKIE), preSessionId, attributes(request, Math.floor(SESSION_MAX_MS / 1000)));
}

export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply): void {
  reply.clearCookie(cookieName(request, SESSION_COOKIE), { httpOnly: true, sameSite: 'lax', path: '/', secure: request.protocol === 'https' });
}

/** One cookie's value; undefined when absent or not a string (parsed by @fastify/cookie). */
export function cookieValue(request: FastifyRequest, name: string): string | undefined {
  // Unset (null) until @fastify/cookie's onRequest hook has run, whatever its type says.
  const value = (request.cookies as FastifyRequest['cookies'] | null)?.[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}
