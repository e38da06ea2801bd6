import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Services } from '../app/services.js';
import { problemSchema } from '../app/problem.js';
import { principalProjectId } from '../app/authenticate.js';
import { authProblems, keyOrSessionSecurity } from '../app/project-route-schemas.js';
import { rateLimitHeaders } from '../rate-limit/sliding-window-limiter.js';
import { createBodySchema, jobParamsSchema, jobSchema, listQuerySchema, promptBodySchema } from './job-schemas.js';
import type { JobStatus } from './job.js';
import type { OperationDocs } from '../app/openapi-headers.js';

const projectParams = z.object({ projectId: z.string().min(1).max(100) });
const security = keyOrSessionSecurity;
const rateLimitedProblems = {
  ...authProblems,
  400: problemSchema.describe('The body is not valid: errors[] lists the fields.'),
  422: problemSchema.describe('The Idempotency-Key was used before with another body.'),
  429: problemSchema.describe('The project used its 100 creates and messages of the last hour; see Retry-After.'),
  503: problemSchema.describe(
    'database_unavailable or database_busy: nothing was created; retry after Retry-After (with the same Idempotency-Key, if one was sent).',
  ),
};

/** What the OpenAPI document says of the create and message answers' headers (success: 201 or 200). */
function rateLimitedDocs(success: 200 | 201): OperationDocs {
  const sometimes: OperationDocs['responseHeaders'] = Object.fromEntries(
    [400, 403, 409, 413, 415, 422, 503].map((status) => [status, ['RateLimit', 'RateLimit-Policy']]),
  );
  return {
    requestHeaders: ['Idempotency-Key'],
    responseHeaders: {
      ...sometimes,
      [success]: [...(success === 201 ? (['Location!'] as const) : []), 'RateLimit!', 'RateLimit-Policy!', 'Idempotent-Replayed'],
      429: ['RateLimit!', 'RateLimit-Policy!'],
    },
  };
}

/**
 * The create and message operations share one rate budget; every answer of theirs after
 * authentication carries the RateLimit headers, also errors that did not spend anything.
 */
function rateLimitHooks(services: Services) {
  return {
    preHandler: async (request: FastifyRequest, reply: FastifyReply) => services.idempotency.begin(request, reply, request.routeOptions.url ?? ''),
    // Both need the database, which may be what failed the request: the answer goes out
    // regardless (without RateLimit headers; an unfinished key is abandoned after 5 minutes).
    onSend: async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
      try {
        // Also on a replay of the stored answer, which only kept the body.
        if (reply.statusCode === 201 && typeof payload === 'string') reply.header('Location', jobLocation(request, payload));
        await services.idempotency.finish(request, reply, payload);
        const projectId = principalProjectId(request);
        if (projectId !== undefined && !reply.hasHeader('RateLimit')) {
          const project = await services.projects.find(projectId);
          if (project) reply.headers(rateLimitHeaders(await services.limiter.peek(project.id, services.jobs.rateLimitFor(project))));
        }
      } catch (error) {
        request.log.warn({ err: error }, 'could not record the idempotency outcome or read the rate limit for this answer');
      }
      return payload;
    },
  };
}

const plainJson = (data: unknown): string => JSON.stringify(data);

function jobLocation(request: FastifyRequest, payload: string): string {
  const { projectId } = request.params as { projectId: string };
  const { id } = JSON.parse(payload) as { id: string };
  return `/v2/agent/${encodeURIComponent(projectId)}/job/${encodeURIComponent(id)}`;
}

/** JSON.stringify, remembered per object: for answers that are frozen objects shared between requests. */
function memoizedJson(): (data: unknown) => string {
  const texts = new WeakMap<object, string>();
  return (data) => {
    if (typeof data !== 'object' || data === null || !Object.isFrozen(data)) return JSON.stringify(data);
    let text = texts.get(data);
    if (text === undefined) {
      text = JSON.stringify(data);
      texts.set(data, text);
    }
    return text;
  };
}

export function registerJobRoutes(app: FastifyInstance, services: Services): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  const hooks = rateLimitHooks(services);

  routes.post(
    '/v2/agent/:projectId/job',
    {
      config: { access: 'admin', openapi: rateLimitedDocs(201) },
      ...hooks,
      // The Idempotency-Key's stored response is JSON.stringify of the job (written in the
      // job's transaction), so the first answer is made the same way: a replay is byte for
      // byte the same. jobFromRow builds exactly the schema's fields (see the poll route).
      serializerCompiler: () => plainJson,
      schema: {
        tags: ['agent jobs'],
        operationId: 'createAgentJob',
        summary: 'Create an agent job',
        description:
          'Queues the instruction; the agent runs in the background, edits the docs repository and opens a pull request. Poll GET …/job/{id} until status is not active. Shares the project rate limit (100 per sliding hour) with the message operation. Supports the Idempotency-Key header.',
        security,
        params: projectParams,
        body: createBodySchema,
        response: {
          201: jobSchema,
          ...rateLimitedProblems,
          400: problemSchema.describe(
            'validation_failed: the body is not valid, or a control does not fit the forge (GitLab: org/team reviewers, a comma in a label, mergeMethod rebase); errors[] lists the fields. On a local-forge project: auto_merge_unsupported (autoMerge), pull_request_options_unsupported (draft, reviewers, labels).',
          ),
          409: problemSchema.describe(
            'branch_taken: another job of the repository uses branchName; or a request with the same Idempotency-Key is still running.',
          ),
        },
      },
    },
    async (request, reply) => {
      const project = await services.projects.get(request.params.projectId);
      const { prompt, ...settings } = request.body;
      const { job, rateLimit } = await services.jobs.create(project, prompt, { withinTransaction: services.idempotency.keepWithin(request, 201) }, settings);
      return reply.status(201).headers(rateLimitHeaders(rateLimit)).send(job);
    },
  );

  routes.get(
    '/v2/agent/:projectId/job/:id',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['agent jobs'],
        operationId: 'getAgentJob',
        summary: 'Get an agent job (the poll operation)',
        security,
        params: jobParamsSchema,
        response: { 200: jobSchema, ...authProblems },
      },
      // Callers poll this in loops. jobFromRow builds exactly the schema's fields (the API
      // tests pin them), so re-validating every answer against the zod schema buys nothing;
      // and the repository hands out the same frozen job while it is unchanged, so its JSON
      // is made once.
      serializerCompiler: () => memoizedJson(),
    },
    async (request) => services.jobRepository.get(request.params.projectId, request.params.id),
  );

  routes.post(
    '/v2/agent/:projectId/job/:id/message',
    {
      config: { access: 'admin', openapi: rateLimitedDocs(200) },
      ...hooks,
      // The Idempotency-Key's stored response is JSON.stringify of the job (written in the
      // job's transaction), so the first answer is made the same way: a replay is byte for
      // byte the same. jobFromRow builds exactly the schema's fields (see the poll route).
      serializerCompiler: () => plainJson,
      schema: {
        tags: ['agent jobs'],
        operationId: 'sendAgentJobMessage',
        summary: 'Send a follow-up message to an agent job',
        description:
          'To an active job: queued after the current turn. To a completed or failed job: re-activates it. The follow-up works on the same branch and updates the same pull request. An archived job answers 409. Shares the rate limit with create; supports Idempotency-Key.',
        security,
        params: jobParamsSchema,
        body: promptBodySchema,
        response: {
          200: jobSchema,
          ...rateLimitedProblems,
          409: problemSchema.describe('The job is archived, or a request with the same Idempotency-Key is still running.'),
        },
      },
    },
    async (request, reply) => {
      const project = await services.projects.get(request.params.projectId);
      const { job, rateLimit } = await services.jobs.message(project, request.params.id, request.body.prompt, {
        withinTransaction: services.idempotency.keepWithin(request, 200),
      });
      return reply.status(200).headers(rateLimitHeaders(rateLimit)).send(job);
    },
  );

  routes.get(
    '/v2/agent/:projectId/jobs',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['agent jobs'],
        operationId: 'listAgentJobs',
        summary: "List a project's agent jobs, newest first",
        security,
        params: projectParams,
        querystring: listQuerySchema,
        response: { 200: z.object({ jobs: z.array(jobSchema), hasMore: z.boolean() }), 400: problemSchema, ...authProblems },
      },
    },
    async (request) =>
      services.jobRepository.list(request.params.projectId, {
        status: request.query.status as JobStatus | undefined,
        limit: request.query.limit,
        offset: request.query.offset,
      }),
  );

  routes.post(
    '/v2/agent/:projectId/job/:id/archive',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['agent jobs'],
        operationId: 'archiveAgentJob',
        summary: 'Archive an agent job',
        description: 'Stops a running turn first and drops queued follow-ups. Archiving is final and idempotent; archivedAt is set.',
        security,
        params: jobParamsSchema,
        response: { 200: jobSchema, ...authProblems },
      },
    },
    async (request) => {
      const project = await services.projects.get(request.params.projectId);
      return services.jobs.archive(project, request.params.id);
    },
  );

  routes.post(
    '/v2/agent/:projectId/job/:id/cancel',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['agent jobs'],
        operationId: 'cancelAgentJob',
        summary: 'Cancel an agent job',
        description:
          'Stops the running turn within seconds (the model call is aborted, uncommitted changes are discarded) and drops queued follow-ups. What earlier turns pushed stays on the branch and in the pull request. The job becomes failed with error.code cancelled and accepts follow-up messages like any failed job. Only an active job can be cancelled: any other status answers 409 job_not_active.',
        security,
        params: jobParamsSchema,
        response: {
          200: jobSchema,
          ...authProblems,
          409: problemSchema.describe('job_not_active: the job is completed, failed or archived (nothing is running to cancel).'),
          503: problemSchema.describe('database_unavailable or database_busy: nothing was cancelled; retry after Retry-After.'),
        },
      },
    },
    async (request) => {
      const project = await services.projects.get(request.params.projectId);
      return services.jobs.cancel(project, request.params.id);
    },
  );
}
