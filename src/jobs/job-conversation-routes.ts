import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Services } from '../app/services.js';
import { problemSchema } from '../app/problem.js';
import { authProblems, keyOrSessionSecurity } from '../projects/project-routes.js';
import { readJobEvents, type JobEvent } from './job-events.js';
import { jobParamsSchema, turnSchema } from './job-schemas.js';
import { isSettled } from './job-state.js';
import { StreamSlots } from './stream-slots.js';
import type { JobStatus } from './job.js';
import type { Principal } from '../keys/api-key.js';

const HEARTBEAT_MS = 15_000;
const FALLBACK_POLL_MS = 1_000;
const MAX_STREAM_MS = 60 * 60_000;

/**
 * Whose share of the stream slots a stream takes: its key's, or its user's (all of a
 * user's sessions together). Admin routes always have a principal; '' only satisfies the type.
 */
function streamHolder(principal: Principal | null): string {
  if (principal === null) return '';
  return principal.kind === 'key' ? principal.keyId : `user:${principal.userId}`;
}

function formatEvent(event: JobEvent): string {
  return `id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify({ ...event.data, at: event.createdAt })}\n\n`;
}

/** The conversation of a job, and its progress as Server-Sent Events. */
export function registerJobConversationRoutes(app: FastifyInstance, services: Services, slots: StreamSlots = new StreamSlots()): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();

  routes.get(
    '/v2/agent/:projectId/job/:id/messages',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['agent jobs'],
        summary: "A job's conversation",
        description: 'One entry per prompt (the first and every follow-up): the prompt, a summary of the tool steps, the final message, the files changed, the commit and any documentation problems left.',
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
      config: { access: 'admin' },
      schema: {
        tags: ['agent jobs'],
        summary: "A job's progress as Server-Sent Events",
        description:
          'text/event-stream of events (job.created, turn.queued, turn.started, step, turn.retrying, turn.completed, turn.failed, pull_request, job.completed, job.failed, job.archived). Each has an id; reconnect with Last-Event-ID (or ?lastEventId=) to resume. The stream ends once the job is no longer active.',
        security: keyOrSessionSecurity,
        params: jobParamsSchema,
        querystring: z.object({ lastEventId: z.coerce.number().int().min(0).optional() }),
        response: {
          200: z.string().describe('text/event-stream'),
          ...authProblems,
          429: problemSchema.describe('too_many_streams_for_key: this key (or signed-in user) already has 20 open event streams (in this server process).'),
          503: problemSchema.describe('too_many_streams: this server process has 1,000 open event streams.'),
        },
      },
    },
    async (request, reply) => {
      const { projectId, id: jobId } = request.params;
      await services.jobRepository.get(projectId, jobId);
      const release = slots.acquire(streamHolder(request.principal));
      const header = Number(request.headers['last-event-id']);
      let cursor = Number.isInteger(header) && header >= 0 ? header : (request.query.lastEventId ?? 0);

      reply.hijack();
      const response = reply.raw;
      response.writeHead(200, {
        'Content-Type': 'text/event-stream; charset=utf-8',
        'Cache-Control': 'no-cache, no-transform',
        Connection: 'keep-alive',
        'X-Accel-Buffering': 'no',
        'X-Request-Id': request.id,
      });
      response.write('retry: 2000\n\n');

      let closed = false;
      let flushing: Promise<void> = Promise.resolve();
      const cleanups: Array<() => void> = [];
      const close = () => {
        if (closed) return;
        closed = true;
        release();
        for (const cleanup of cleanups) cleanup();
        response.end();
      };
      const flush = async (): Promise<void> => {
        // Status first, events second: a job that settles in between still has its final
        // event read below, so the stream never ends before sending it.
        const job = await services.jobRepository.get(projectId, jobId);
        for (;;) {
          const events = await readJobEvents(services.database.db, jobId, cursor);
          for (const event of events) {
            if (closed) return;
            response.write(formatEvent(event));
            cursor = event.id;
          }
          if (events.length < 500) break;
        }
        if (isSettled(job.status as JobStatus)) close();
      };
      const schedule = () => {
        flushing = flushing.then(() => (closed ? undefined : flush())).catch(() => close());
      };
      // The response closes when the client goes away (or after end()). A client already
      // gone before this point is caught below; it would otherwise hold its slot for an hour.
      response.on('close', close);
      cleanups.push(() => response.off('close', close));
      cleanups.push(services.notifier.subscribe('docwright_job_events', (payload) => payload === jobId && schedule()));
      const poll = setInterval(schedule, FALLBACK_POLL_MS);
      const heartbeat = setInterval(() => response.write(': keep-alive\n\n'), HEARTBEAT_MS);
      const limit = setTimeout(close, MAX_STREAM_MS);
      cleanups.push(() => clearInterval(poll), () => clearInterval(heartbeat), () => clearTimeout(limit));
      if (response.socket === null || response.socket.destroyed) close();
      schedule();
      await flushing;
    },
  );
}
