import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Services } from '../app/services.js';
import { authProblems, keyOrSessionSecurity, projectParamsSchema } from '../app/project-route-schemas.js';
import { projectSettingsSchema } from './project-input.js';

export const projectSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    repository: z.string(),
    ref: z.string(),
    forge: z.enum(['local', 'github', 'gitlab']),
    settings: projectSettingsSchema,
    hasForgeCredentials: z.boolean(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Project' });

/** `GET /v1/projects/{projectId}`: lets a key holder check which project a key opens (used by the CLI), and the dashboard read one. */
export function registerProjectRoutes(app: FastifyInstance, services: Services): void {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/v1/projects/:projectId',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['projects'],
        operationId: 'getProject',
        summary: 'Get a project (its admin key, or any signed-in user)',
        security: keyOrSessionSecurity,
        params: projectParamsSchema,
        response: { 200: projectSchema, ...authProblems },
      },
    },
    async (request) => services.projects.get(request.params.projectId),
  );
}
