import type { FastifyRequest } from 'fastify';

/** A person signed in to the dashboard (accounts and sessions live in the auth feature). */
export interface SignedInUser {
  id: string;
  email: string;
  role: string;
}

function isSignedInUser(value: unknown): value is SignedInUser {
  if (typeof value !== 'object' || value === null) return false;
  const user = value as Record<string, unknown>;
  return typeof user.id === 'string' && user.id.length > 0 && typeof user.email === 'string' && typeof user.role === 'string';
}

/**
 * The signed-in user of a request, or null. The one place that reads `request.user`, which
 * the session hook sets (null when nobody is signed in); routes that let a person act
 * (merge and close a local pull request) ask here, so where the user comes from can change
 * in one function.
 */
export function signedInUser(request: FastifyRequest): SignedInUser | null {
  const user = (request as { user?: unknown }).user;
  return isSignedInUser(user) ? user : null;
}
