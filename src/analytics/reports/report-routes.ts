import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Clock } from '../../core/clock.js';
import { problemSchema } from '../../app/problem.js';
import { authProblems, keyOrSessionSecurity, projectParamsSchema } from '../../app/project-route-schemas.js';
import type { AnalyticsService } from '../analytics-service.js';
import { reportUnavailable } from '../analytics-schemas.js';
import { parseDateOrDateTime } from '../parse-instant.js';
import {
  agentErrorsQuerySchema,
  agentErrorsResponseSchema,
  agentsQuerySchema,
  agentsResponseSchema,
  pagesQuerySchema,
  pagesResponseSchema,
  REPORT_DESCRIPTIONS,
  summaryQuerySchema,
  summaryResponseSchema,
} from './report-schemas.js';
import { weeklySummary } from './summary-report.js';

const bound = (value: string | undefined): number | null => (value === undefined ? null : parseDateOrDateTime(value));
const badInput = { 400: problemSchema.describe('Invalid parameters (errors lists each field), dateFrom after dateTo, or before the raw-hit retention.') };
const common = { config: { access: 'admin' as const }, tags: ['analytics'], security: keyOrSessionSecurity, params: projectParamsSchema };

/** The reports on AI readers (issue 14): /agents, /pages, /agent-errors and /summary under /v1/analytics/{projectId}. */
export function registerReportRoutes(app: FastifyInstance, service: AnalyticsService, clock: Clock): void {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  const { config, ...schema } = common;

  typed.get(
    '/v1/analytics/:projectId/agents',
    {
      config,
      schema: {
        ...schema,
        operationId: 'getAgentsReport',
        summary: 'Get AI agents report',
        description: REPORT_DESCRIPTIONS.agents,
        querystring: agentsQuerySchema,
        response: { 200: agentsResponseSchema, ...badInput, ...authProblems, ...reportUnavailable },
      },
    },
    async (request) => {
      const { dateFrom, dateTo, limit, offset } = request.query;
      return service.agents(request.params.projectId, { from: bound(dateFrom), to: bound(dateTo), limit, offset });
    },
  );

  typed.get(
    '/v1/analytics/:projectId/pages',
    {
      config,
      schema: {
        ...schema,
        operationId: 'getPagesReport',
        summary: 'Get pages report (human and AI readers)',
        description: REPORT_DESCRIPTIONS.pages,
        querystring: pagesQuerySchema,
        response: { 200: pagesResponseSchema, ...badInput, ...authProblems, ...reportUnavailable },
      },
    },
    async (request) => {
      const { dateFrom, dateTo, limit, offset, sort, order } = request.query;
      return service.pages(request.params.projectId, { from: bound(dateFrom), to: bound(dateTo), limit, offset, sort, order });
    },
  );

  typed.get(
    '/v1/analytics/:projectId/agent-errors',
    {
      config,
      schema: {
        ...schema,
        operationId: 'getAgentErrorsReport',
        summary: 'Get pages that answered agents with 4xx',
        description: REPORT_DESCRIPTIONS.agentErrors,
        querystring: agentErrorsQuerySchema,
        response: { 200: agentErrorsResponseSchema, ...badInput, ...authProblems, ...reportUnavailable },
      },
    },
    async (request) => {
      const { dateFrom, dateTo, limit, offset } = request.query;
      return service.agentErrors(request.params.projectId, { from: bound(dateFrom), to: bound(dateTo), limit, offset });
    },
  );

  typed.get(
    '/v1/analytics/:projectId/summary',
    {
      config,
      schema: {
        ...schema,
        operationId: 'getSummary',
        summary: 'Get weekly summary',
        description: REPORT_DESCRIPTIONS.summary,
        querystring: summaryQuerySchema,
        response: { 200: summaryResponseSchema, ...badInput, ...authProblems, ...reportUnavailable },
      },
    },
    async (request) => weeklySummary(service, request.params.projectId, { from: bound(request.query.dateFrom), to: bound(request.query.dateTo) }, clock.now()),
  );
}
