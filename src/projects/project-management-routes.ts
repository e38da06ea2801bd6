import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Services } from '../app/services.js';
import { problemSchema } from '../app/problem.js';
import { badBody, sessionProblems } from '../accounts/account-schemas.js';
import { normaliseProjectInput } from './project-input.js';
import {
  deleteProjectBodySchema,
  forgeTokenCredentials,
  newProjectBodySchema,
  patchSettings,
  projectPatchBodySchema,
  requireAbsoluteLocalPath,
} from './project-management-input.js';
import { projectSchema } from './project-routes.js';
import { projectParamsSchema } from '../app/project-route-schemas.js';

const TAGS = ['projects'];
const security = [{ cookieAuth: [] }];
const notFound = { 404: problemSchema.describe('No such project.') };

/** The dashboard's project management: list (any user), create, change, delete (admins). */
export function registerProjectManagementRoutes(app: FastifyInstance, services: Services): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();

  routes.get(
    '/v1/projects',
    {
      config: { access: 'session' },
      schema: {
        tags: TAGS,
        operationId: 'listProjects',
        summary: 'List every project (signed-in users)',
        security,
        response: { 200: z.object({ projects: z.array(projectSchema) }), ...sessionProblems },
      },
    },
    async () => ({ projects: await services.projects.listAll() }),
  );

  routes.post(
    '/v1/projects',
    {
      config: { access: 'session-admin', openapi: { responseHeaders: { 201: ['Location!'] } } },
      schema: {
        tags: TAGS,
        operationId: 'createProject',
        summary: 'Create a project (admins only)',
        description:
          'Like `docwright projects create`. The forge follows from the repository when omitted; forgeToken (GitHub or GitLab) is stored encrypted and never returned. Needs X-CSRF-Token.',
        security,
        body: newProjectBodySchema,
        response: { 201: projectSchema, ...badBody, ...sessionProblems },
      },
    },
    async (request, reply) => {
      const { forgeToken, ...fields } = request.body;
      requireAbsoluteLocalPath(fields.repository, fields.forge);
      const input = normaliseProjectInput(fields);
      const project = await services.projects.create(input, forgeTokenCredentials(input.forge, forgeToken) ?? null);
      request.log.info({ projectId: project.id, by: request.user?.id }, 'project created');
      return reply
        .status(201)
        .header('Location', `/v1/projects/${encodeURIComponent(project.id)}`)
        .send(project);
    },
  );

  routes.patch(
    '/v1/projects/:projectId',
    {
      config: { access: 'session-admin' },
      schema: {
        tags: TAGS,
        operationId: 'updateProject',
        summary: "Change a project's name, ref, forge token or settings (admins only)",
        description:
          'Only the fields given change. In settings, a key set to null is removed (the default applies again). forgeToken is write-only; null removes the stored credentials. Needs X-CSRF-Token.',
        security,
        params: projectParamsSchema,
        body: projectPatchBodySchema,
        response: { 200: projectSchema, ...badBody, ...sessionProblems, ...notFound },
      },
    },
    async (request) => {
      const { projectId } = request.params;
      const current = await services.projects.get(projectId);
      const { name, ref, forgeToken, settings } = request.body;
      const credentials = forgeTokenCredentials(current.forge, forgeToken);
      return services.projects.update(projectId, {
        ...(name === undefined ? {} : { name }),
        ...(ref === undefined ? {} : { ref }),
        ...(settings === undefined ? {} : { settings: patchSettings(current.settings, settings) }),
        ...(credentials === undefined ? {} : { credentials }),
      });
    },
  );

  routes.delete(
    '/v1/projects/:projectId',
    {
      config: { access: 'session-admin' },
      schema: {
        tags: TAGS,
        operationId: 'deleteProject',
        summary: 'Delete a project and everything it owns (admins only)',
        description:
          "Body {confirmName} must equal the project's name. Removes its jobs (with their conversations, events and queue entries), API keys (refused at once in every process), analytics, rate-limit and idempotency records, local pull requests and job workspaces; running turns are stopped. Needs X-CSRF-Token.",
        security,
        params: projectParamsSchema,
        body: deleteProjectBodySchema,
        response: {
          204: z.null().describe('Deleted.'),
          400: problemSchema.describe("confirmation_mismatch: confirmName is not the project's name (nothing was deleted); or validation_failed."),
          ...sessionProblems,
          ...notFound,
        },
      },
    },
    async (request, reply) => {
      await services.projectDeletion.delete(request.params.projectId, request.body.confirmName);
      request.log.info({ projectId: request.params.projectId, by: request.user?.id }, 'project deleted');
      return reply.status(204).send(null);
    },
  );
}
