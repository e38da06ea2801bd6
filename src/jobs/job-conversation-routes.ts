import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Services } from '../app/services.js';
import { authProblems, keyOrSessionSecurity } from '../app/project-route-schemas.js';
import { readJobEvents, type JobEvent } from './job-events.js';
import { jobParamsSchema, turnSchema } from './job-schemas.js';
import { isSettled } from './job-state.js';
import { StreamSlots } from './stream-slots.js';
import { openEventStream, streamProblems } from './event-stream.js';
import { registerProjectJobStreamRoute } from './project-job-stream-route.js';

const FALLBACK_POLL_MS = 1_000;

function formatEvent(event: JobEvent): string {
  return `id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify({ ...event.data, at: event.createdAt })}\n\n`;
}

/**
 * The conversation of a job, and its progress as Server-Sent Events; also the project's job
 * stream, which shares the event stream slots (one limit per key over both kinds).
 */
export function registerJobConversationRoutes(app: FastifyInstance, services: Services, slots: StreamSlots = new StreamSlots()): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  // app.close() runs preClose before it closes the listener and waits for connections:
  // the streams end first (each after a last read, with its `reconnect` event unless its
  // job ended), so they cannot hold it up.
  app.addHook('preClose', async () => {
    const ended = await slots.endAll();
    if (ended > 0) app.log.info({ streams: ended }, 'shutdown: ended open event streams (clients were told to reconnect)');
  });

  routes.get(
    '/v2/agent/:projectId/job/:id/messages',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['agent jobs'],
        operationId: 'listAgentJobMessages',
        summary: "A job's conversation",
        description:
          'One entry per prompt (the first and every follow-up): the prompt, a summary of the tool steps, the final message, the files changed, the commit and any documentation problems left.',
        security: keyOrSessionSecurity,
        params: jobParamsSchema,
        response: { 200: z.object({ messages: z.array(turnSchema) }), ...authProblems },
      },
    },
    async (request) => ({ messages: await services.jobRepository.turns(request.params.projectId, request.params.id) }),
  );

  routes.get(
    '/v2/agent/:projectId/job/:id/events',
    {
      config: { access: 'admin', openapi: { eventStream: 200, requestHeaders: ['Last-Event-ID'] } },
      schema: {
        tags: ['agent jobs'],
        operationId: 'streamAgentJobEvents',
        summary: "A job's progress as Server-Sent Events",
        description:
          'text/event-stream of events (job.created, turn.queued, turn.started, step, turn.retrying, turn.completed, turn.failed, pull_request, job.completed, job.failed, job.archived). Each has an id; reconnect with Last-Event-ID (or ?lastEventId=) to resume. The stream ends once the job is no longer active. When the server ends it earlier (shutting down, or after an hour), its last message is `event: reconnect` with data {reason: shutdown|time_limit, retryMs}: reconnect after retryMs with Last-Event-ID (another server process may answer).',
        security: keyOrSessionSecurity,
        params: jobParamsSchema,
        querystring: z.object({ lastEventId: z.coerce.number().int().min(0).optional() }),
        response: {
          200: z.string().describe('text/event-stream'),
          ...authProblems,
          ...streamProblems,
        },
      },
    },
    async (request, reply) => {
      const { projectId, id: jobId } = request.params;
      await services.jobRepository.get(projectId, jobId);
      const header = Number(request.headers['last-event-id']);
      let cursor = Number.isInteger(header) && header >= 0 ? header : (request.query.lastEventId ?? 0);
      const stream = openEventStream(request, reply, slots);
      const flush = async (): Promise<void> => {
        // Status first, events second: a job that settles in between still has its final
        // event read below, so the stream never ends before sending it.
        const job = await services.jobRepository.get(projectId, jobId);
        for (;;) {
          const events = await readJobEvents(services.database.db, jobId, cursor);
          for (const event of events) {
            if (stream.closed) return;
            stream.write(formatEvent(event));
            cursor = event.id;
          }
          if (events.length < 500) break;
        }
        if (isSettled(job.status)) stream.close();
      };
      stream.onClose(services.notifier.subscribe('docwright_job_events', (payload) => payload === jobId && stream.schedule(flush)));
      const poll = setInterval(() => stream.schedule(flush), FALLBACK_POLL_MS);
      stream.onClose(() => clearInterval(poll));
      stream.schedule(flush);
      await stream.settled();
    },
  );

  registerProjectJobStreamRoute(app, services, slots);
}
