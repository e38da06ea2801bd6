import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Services } from '../app/services.js';
import { authProblems, keyOrSessionSecurity } from '../app/project-route-schemas.js';
import { openEventStream, streamProblems } from './event-stream.js';
import { RecentJobChanges } from './recent-job-changes.js';
import type { StreamSlots } from './stream-slots.js';

/** SQLite: other processes writing the same file send no notification, so poll often. */
const SQLITE_POLL_MS = 1_000;
/** PostgreSQL: notifications cross processes; the poll only covers a lost listener connection. */
const POSTGRES_POLL_MS = 5_000;

/**
 * `GET /v2/agent/{projectId}/jobs/events`: every change of any job of the project (created,
 * status, prLink, prStatus) as `event: job` with the job's JSON, so a job list can update
 * its badges live. Woken by `docwright_project_jobs` notifications (LISTEN/NOTIFY across
 * processes on PostgreSQL), with a fallback poll.
 */
export function registerProjectJobStreamRoute(app: FastifyInstance, services: Services, slots: StreamSlots): void {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/v2/agent/:projectId/jobs/events',
    {
      config: { access: 'admin', openapi: { eventStream: 200 } },
      schema: {
        tags: ['agent jobs'],
        operationId: 'streamProjectJobChanges',
        summary: "Changes of a project's jobs as Server-Sent Events",
        description:
          'text/event-stream of `event: job` whose data is the AgentJob JSON, sent when a job is created or its status, prLink or prStatus changes. On connecting, the jobs changed in the last 60 seconds are sent first (so nothing is lost between reading the list and subscribing); after a longer disconnection, read the list again. Keep-alive comments every 15 s; when the server ends the stream (shutting down, or after an hour) its last message is `event: reconnect` with data {reason: shutdown|time_limit, retryMs}: reconnect after retryMs (EventSource does so by itself). Shares the open-stream limits with the per-job streams.',
        security: keyOrSessionSecurity,
        params: z.object({ projectId: z.string().min(1).max(100) }),
        response: {
          200: z.string().describe('text/event-stream'),
          ...authProblems,
          ...streamProblems,
        },
      },
    },
    async (request, reply) => {
      const project = await services.projects.get(request.params.projectId);
      const changes = new RecentJobChanges(services.database, services.clock, project.id);
      const stream = openEventStream(request, reply, slots);
      const flush = async (): Promise<void> => {
        for (const job of await changes.read()) stream.write(`event: job\ndata: ${JSON.stringify(job)}\n\n`);
      };
      stream.onClose(services.notifier.subscribe('docwright_project_jobs', (payload) => payload === project.id && stream.schedule(flush)));
      const poll = setInterval(() => stream.schedule(flush), services.notifier.crossProcess ? POSTGRES_POLL_MS : SQLITE_POLL_MS);
      stream.onClose(() => clearInterval(poll));
      stream.schedule(flush);
      await stream.settled();
    },
  );
}
