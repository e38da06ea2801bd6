import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Database } from '../db/database.js';
import { DocwrightError } from '../core/errors.js';

export function registerHealthRoutes(app: FastifyInstance, database: Database): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  routes.get(
    '/healthz',
    {
      schema: { tags: ['operations'], summary: 'Liveness: the process is up', response: { 200: z.object({ status: z.literal('ok') }) } },
    },
    async () => ({ status: 'ok' as const }),
  );
  routes.get(
    '/readyz',
    {
      schema: { tags: ['operations'], summary: 'Readiness: the database answers', response: { 200: z.object({ status: z.literal('ready'), database: z.enum(['sqlite', 'postgres']) }) } },
    },
    async () => {
      try {
        await database.ping();
      } catch (error) {
        throw new DocwrightError('not_ready', 'The database does not answer.', { status: 503, cause: error });
      }
      return { status: 'ready' as const, database: database.dialect };
    },
  );
}
