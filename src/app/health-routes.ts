import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Database } from '../db/database.js';
import { DocwrightError } from '../core/errors.js';
import { problemSchema } from './problem.js';
import type { Readiness } from './readiness.js';

export function registerHealthRoutes(app: FastifyInstance, database: Database, readiness: Readiness): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  routes.get(
    '/healthz',
    {
      schema: {
        tags: ['operations'],
        operationId: 'getLiveness',
        summary: 'Liveness: the process is up',
        description: 'Always 200 while the process runs, draining included: restart on failure, not on 503 from /readyz.',
        response: { 200: z.object({ status: z.literal('ok') }) },
      },
    },
    async () => ({ status: 'ok' as const }),
  );
  routes.get(
    '/readyz',
    {
      schema: {
        tags: ['operations'],
        operationId: 'getReadiness',
        summary: 'Readiness: send traffic here',
        description:
          '200 while the database answers and the process is not shutting down. 503 problem `shutting_down` from the moment a SIGTERM/SIGINT starts the drain (requests are still served until the listener closes, so a load balancer has time to move traffic), or `not_ready` when the database does not answer.',
        response: {
          200: z.object({ status: z.literal('ready'), database: z.enum(['sqlite', 'postgres']) }),
          503: problemSchema.describe('shutting_down: this process is draining; not_ready: the database does not answer.'),
        },
      },
    },
    async () => {
      if (readiness.isDraining) throw new DocwrightError('shutting_down', 'This process is shutting down; send requests to another one.', { status: 503 });
      try {
        await database.ping();
      } catch (error) {
        throw new DocwrightError('not_ready', 'The database does not answer.', { status: 503, cause: error });
      }
      return { status: 'ready' as const, database: database.dialect };
    },
  );
}
