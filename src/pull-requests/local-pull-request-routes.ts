import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Services } from '../app/services.js';
import { problemSchema } from '../app/problem.js';
import { requireUser } from '../app/authenticate.js';
import { DocwrightError, notFound } from '../core/errors.js';
import { ClientRateLimiter, type ClientRateLimit } from '../rate-limit/client-rate-limiter.js';
import { pullRequestMergeSchema, pullRequestParamsSchema, pullRequestSchema } from './pull-request-schemas.js';

/** Reads per client address (an IPv6 /64 counts as one) and minute, per process. */
export const PULL_REQUEST_PAGE_RATE_LIMIT: ClientRateLimit = { limit: 60, windowMs: 60_000, maxClients: 50_000 };

const PRIVATE_HEADERS = {
  // The URL is the credential: keep it out of shared caches, Referer headers and indexes.
  'Cache-Control': 'private, no-store',
  'Referrer-Policy': 'no-referrer',
  'X-Robots-Tag': 'noindex, nofollow',
};

const tags = ['local forge'];

/**
 * Pull requests of the local forge, for the dashboard's page that `prLink` points at
 * (`/projects/{projectId}/pulls/{number}?token=…`, served by the dashboard).
 *
 * Reading is public like a share link: the token in the link is the key (a browser
 * following prLink has no API key), or a signed-in user. A request without it or with a
 * wrong one gets exactly the 404 of a pull request that does not exist, and every address
 * is limited to PULL_REQUEST_PAGE_RATE_LIMIT, so tokens cannot be guessed and pull request
 * numbers cannot be probed. Merging and closing change the repository: signed-in users
 * only, never the token (a link forwarded to a reviewer must not be able to merge).
 */
export function registerLocalPullRequestRoutes(app: FastifyInstance, services: Services, limit: ClientRateLimit = PULL_REQUEST_PAGE_RATE_LIMIT): void {
  const limiter = new ClientRateLimiter(services.clock, limit);
  const routes = app.withTypeProvider<ZodTypeProvider>();

  routes.get(
    '/v1/projects/:projectId/pulls/:number',
    {
      config: { access: 'public' },
      schema: {
        tags,
        operationId: 'getLocalPullRequest',
        summary: 'A pull request of the built-in local forge, with its description and diff',
        description: `Opened by the share token that prLink carries (?token=), or for a signed-in user. Without either, or with a wrong token, the answer is the 404 of an unknown pull request. At most ${limit.limit} reads per client address per ${limit.windowMs / 1000} seconds (429 with Retry-After beyond).`,
        params: pullRequestParamsSchema,
        querystring: z.object({ token: z.string().max(200).optional().describe('The share token from prLink.') }),
        response: { 200: pullRequestSchema, 404: problemSchema, 429: problemSchema },
      },
    },
    async (request, reply) => {
      reply.headers(PRIVATE_HEADERS);
      // Counted before the lookup, so misses spend the budget too.
      const retryAfter = limiter.take(request.ip);
      if (retryAfter > 0) {
        throw new DocwrightError('rate_limited', 'Too many pull request reads from this address; try again later.', {
          status: 429,
          headers: { 'Retry-After': String(retryAfter) },
        });
      }
      const { projectId, number } = request.params;
      const view = await services.pullRequests.view(projectId, number, { token: request.query.token, user: request.user });
      if (view === null) throw notFound(`No pull request #${number} in this project.`);
      return view;
    },
  );

  const actionSchema = (operationId: string, summary: string, description: string, conflicts: string) => ({
    operationId,
    tags,
    summary,
    description,
    security: [{ cookieAuth: [] }],
    params: pullRequestParamsSchema,
    response: {
      200: pullRequestSchema,
      401: problemSchema.describe('sign_in_required: nobody is signed in.'),
      403: problemSchema.describe('csrf_failed: the X-CSRF-Token header is missing or wrong.'),
      404: problemSchema,
      409: problemSchema.describe(conflicts),
    },
  });

  routes.post(
    '/v1/projects/:projectId/pulls/:number/merge',
    {
      config: { access: 'session' },
      // No body at all is validated as an empty one, so the 400 names the missing field.
      preValidation: (request, _reply, done) => {
        // Typed as already valid, but this runs before validation: the body may be absent.
        const body = request.body as unknown;
        if (body === undefined || body === null) request.body = {} as typeof request.body;
        done();
      },
      schema: {
        ...actionSchema(
          'mergeLocalPullRequest',
          'Merge a local pull request',
          "Signed-in users only. A real git merge of head into the base branch of the project repository, always with a merge commit. The body's headCommit pins what is merged: the headCommit of the view the reviewer saw; if the branch has moved since, nothing is merged (409 head_moved), and a body without it is a 400. The merge is computed without touching the repository (git merge-tree), then the base ref is moved only if nobody pushed to it meanwhile (else the merge is computed again) and head is still at headCommit, both checked in one git ref transaction; if the base branch is checked out, its clean working tree is updated too.",
          'head_moved (head is no longer at headCommit: new commits to review; nothing was changed), merge_conflict (errors[] lists the conflicting files; nothing was changed), pull_request_merged, pull_request_closed, job_active (the job is still running), base_checked_out_dirty, branch_missing, base_changed.',
        ),
        body: pullRequestMergeSchema,
      },
    },
    async (request, reply) => {
      const user = requireUser(request);
      reply.headers(PRIVATE_HEADERS);
      const view = await services.pullRequests.merge(request.params.projectId, request.params.number, user, request.body.headCommit);
      request.log.info(
        { userId: user.id, projectId: request.params.projectId, number: request.params.number, mergeCommit: view.mergeCommit },
        'local pull request merged',
      );
      return view;
    },
  );

  routes.post(
    '/v1/projects/:projectId/pulls/:number/close',
    {
      config: { access: 'session' },
      schema: actionSchema(
        'closeLocalPullRequest',
        'Close a local pull request without merging',
        'Signed-in users only. The branch stays; a follow-up message to the job reopens the pull request when its turn updates it.',
        'pull_request_merged, pull_request_closed, job_active (the job is still running).',
      ),
    },
    async (request, reply) => {
      const user = requireUser(request);
      reply.headers(PRIVATE_HEADERS);
      const view = await services.pullRequests.close(request.params.projectId, request.params.number);
      request.log.info({ userId: user.id, projectId: request.params.projectId, number: request.params.number }, 'local pull request closed');
      return view;
    },
  );
}
