import { DocwrightError } from '../../core/errors.js';
import type { ForgeName } from './forge-errors.js';

/** The `fetch` signature Octokit's `request.fetch` and the GitLab client call. */
export type ForgeFetch = (input: string | URL, init?: RequestInit) => Promise<Response>;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** GitHub chains at most two for a renamed and transferred repository; more is a loop. */
const MAX_REDIRECTS = 5;

/**
 * `fetch` for forge API calls, which carry credentials in headers. Node's fetch follows a
 * redirect to any origin and drops only `Authorization` on the way, so GitLab's
 * `PRIVATE-TOKEN` would reach whatever host a redirect names, and that host's answer
 * would be taken for the forge's (a forged pull request URL, say). Redirects are therefore
 * followed here, and only within the origin that was asked (a renamed repository answers
 * 301/307 to its new path on the same API); one to another origin fails the call.
 * Hand-written because fetch offers no hook between the hops.
 */
export function forgeFetch(forge: ForgeName): ForgeFetch {
  return async (input, init = {}) => {
    let url = new URL(input);
    let request: RequestInit = { ...init, redirect: 'manual' };
    for (let hops = 0; ; hops += 1) {
      const response = await fetch(url, request);
      const location = response.headers.get('location');
      if (!REDIRECT_STATUSES.has(response.status) || location === null) return response;
      // Frees the connection; the redirect's body is never read.
      await response.body?.cancel().catch(() => {});
      const next = new URL(location, url);
      if (next.origin !== url.origin) throw redirectRefused(forge, response.status, url, next);
      if (hops >= MAX_REDIRECTS) {
        throw new DocwrightError('forge_request_failed', `${forge} redirected more than ${MAX_REDIRECTS} times from ${describe(url)}.`, { status: 502 });
      }
      request = afterRedirect(request, response.status);
      url = next;
    }
  };
}

/** The fetch standard's method change: 303 (not for HEAD), or 301/302 after a POST, become a GET without body. */
function afterRedirect(request: RequestInit, status: number): RequestInit {
  const method = (request.method ?? 'GET').toUpperCase();
  const toGet = (status === 303 && method !== 'GET' && method !== 'HEAD') || ((status === 301 || status === 302) && method === 'POST');
  if (!toGet) return request;
  const headers = new Headers(request.headers);
  for (const name of ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location']) headers.delete(name);
  const { duplex: _duplex, ...rest } = request as RequestInit & { duplex?: unknown };
  return { ...rest, method: 'GET', body: undefined, headers };
}

function redirectRefused(forge: ForgeName, status: number, from: URL, to: URL): DocwrightError {
  const variable = forge === 'GitHub' ? 'DOCWRIGHT_GITHUB_API_URL' : 'DOCWRIGHT_GITLAB_API_URL';
  return new DocwrightError(
    'forge_redirect_refused',
    `${forge} answered HTTP ${status} for ${describe(from)}, redirecting to another origin (${to.origin}). ` +
      `Docwright does not send forge credentials to another origin; set ${variable} to the API's own address.`,
    { status: 502 },
  );
}

/** Origin and path only: the query may hold search terms, never worth repeating. */
function describe(url: URL): string {
  return `${url.origin}${url.pathname}`;
}
