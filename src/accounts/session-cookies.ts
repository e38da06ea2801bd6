import type { FastifyReply, FastifyRequest } from 'fastify';
import { SESSION_MAX_MS } from './session-store.js';

export const SESSION_COOKIE = 'dw_session';
export const CSRF_COOKIE = 'dw_csrf';
export const CSRF_HEADER = 'x-csrf-token';

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
  reply.setCookie(SESSION_COOKIE, secret, attributes(request, Math.floor(SESSION_MAX_MS / 1000)));
}

/** The CSRF cookie outlives sessions: it also protects sign-in and setup, before any session. */
export function setCsrfCookie(request: FastifyRequest, reply: FastifyReply, token: string): void {
  reply.setCookie(CSRF_COOKIE, token, attributes(request, Math.floor(SESSION_MAX_MS / 1000)));
}

export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply): void {
  reply.clearCookie(SESSION_COOKIE, { httpOnly: true, sameSite: 'lax', path: '/', secure: request.protocol === 'https' });
}

/** One cookie's value; undefined when absent or not a string (parsed by @fastify/cookie). */
export function cookieValue(request: FastifyRequest, name: string): string | undefined {
  // Unset (null) until @fastify/cookie's onRequest hook has run, whatever its type says.
  const value = (request.cookies as FastifyRequest['cookies'] | null)?.[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}
