import { createHmac } from 'node:crypto';
import { newSecretToken, SECRET_TOKEN_PATTERN, tokensEqual } from './secret-token.js';

/**
 * The CSRF token of a browser without a session (sign-in, setup): an HMAC, under the
 * instance secret, of the random pre-session id in the dw_csrf cookie. The cookie alone is
 * no longer the token, so a page on a sibling host that plants a cookie of its choosing
 * cannot know the matching token without asking this server for a pair first (and over
 * https the `__Host-` prefix keeps it from planting any cookie). Every process of an
 * instance computes the same token; nothing is stored.
 */
export function preSessionCsrfToken(instanceSecret: string, preSessionId: string): string {
  // base64url of 32 bytes: the same 43-character shape as every other CSRF token.
  return createHmac('sha256', instanceSecret).update(`docwright pre-session csrf v1\n${preSessionId}`).digest('base64url');
}

/** The browser's pre-session id when it is well-formed, else a new one (to be set as its cookie). */
export function preSessionId(current: string | undefined): string {
  return current !== undefined && SECRET_TOKEN_PATTERN.test(current) ? current : newSecretToken();
}

export function preSessionCsrfMatches(instanceSecret: string, preSessionId: string | undefined, presented: string): boolean {
  if (preSessionId === undefined || !SECRET_TOKEN_PATTERN.test(preSessionId)) return false;
  return tokensEqual(presented, preSessionCsrfToken(instanceSecret, preSessionId));
}
