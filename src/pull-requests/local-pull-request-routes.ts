import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Services } from '../app/services.js';
import { DocwrightError, notFound } from '../core/errors.js';
import { ClientRateLimiter, type ClientRateLimit } from '../rate-limit/client-rate-limiter.js';

/** Page views per client address (an IPv6 /64 counts as one) and minute, per process. */
export const PULL_REQUEST_PAGE_RATE_LIMIT: ClientRateLimit = { limit: 60, windowMs: 60_000, maxClients: 50_000 };

const PAGE_HEADERS = {
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  // The URL is the credential: keep it out of shared caches, Referer headers and indexes.
  'Cache-Control': 'private, no-store',
  'Referrer-Policy': 'no-referrer',
  'X-Robots-Tag': 'noindex, nofollow',
  'X-Content-Type-Options': 'nosniff',
};

/**
 * Pull requests of the local forge, as `prLink` points at them: public like a share link.
 * The token in the link is the only key (a browser following prLink has no API key); a
 * request without it or with a wrong one gets exactly the 404 of a pull request that does
 * not exist, and every address is limited to PULL_REQUEST_PAGE_RATE_LIMIT, so tokens
 * cannot be guessed and pull request numbers cannot be probed.
 */
export function registerLocalPullRequestRoutes(app: FastifyInstance, services: Services, limit: ClientRateLimit = PULL_REQUEST_PAGE_RATE_LIMIT): void {
  const limiter = new ClientRateLimiter(services.clock, limit);
  app.withTypeProvider<ZodTypeProvider>().get(
    '/projects/:projectId/pulls/:number',
    {
      config: { access: 'public' },
      schema: {
        tags: ['local forge'],
        summary: 'A pull request of the built-in local forge, as an HTML page with its diff',
        description: `Public, opened by the share token that prLink carries. Without it, or with a wrong one, the answer is the 404 of an unknown pull request. At most ${limit.limit} views per client address per ${limit.windowMs / 1000} seconds (429 with Retry-After beyond). Errors are problem bodies.`,
        params: z.object({ projectId: z.string().min(1).max(100), number: z.coerce.number().int().min(1).max(1_000_000_000) }),
        querystring: z.object({ token: z.string().optional().describe('The share token from prLink.') }),
        produces: ['text/html'],
      },
    },
    async (request, reply) => {
      // Counted before the lookup, so misses spend the budget too.
      const retryAfter = limiter.take(request.ip);
      if (retryAfter > 0) {
        throw new DocwrightError('rate_limited', 'Too many pull request page views from this address; try again later.', { status: 429, headers: { 'Retry-After': String(retryAfter) } });
      }
      const { projectId, number } = request.params;
      const page = await services.pullRequestPages.render(projectId, number, request.query.token);
      if (page === null) throw notFound(`No pull request #${number} in this project.`);
      return reply.type('text/html; charset=utf-8').headers(PAGE_HEADERS).send(page);
    },
  );
}
