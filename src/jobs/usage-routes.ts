import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Services } from '../app/services.js';
import { problemSchema } from '../app/problem.js';
import { authProblems, keyOrSessionSecurity, projectParamsSchema } from '../app/project-route-schemas.js';
import { usageSchema } from './job-schemas.js';
import { MAX_REPORT_MONTHS, usageReport } from './usage-report.js';

const month = z
  .string()
  .regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'must be a month, YYYY-MM')
  .describe('A UTC month, YYYY-MM.');

const usageReportSchema = z
  .object({
    projectId: z.string(),
    months: z
      .array(
        usageSchema.extend({
          month: z.string().describe('YYYY-MM (UTC).'),
          totalTokens: z.number().int().describe('inputTokens + outputTokens: what the monthly budget counts.'),
          unpricedTokens: z.number().int().describe('Tokens of models without a price: counted in the tokens, not in estimatedCostUsd.'),
        }),
      )
      .describe('Every month of the range, newest first; zeros where nothing ran.'),
    budget: z
      .object({
        monthlyTokens: z.number().int().nullable().describe("The project's monthly token budget; null = none."),
        month: z.string().describe('The current UTC month.'),
        usedTokens: z.number().int(),
        remainingTokens: z.number().int().nullable(),
      })
      .describe('Where the current month stands against the budget.'),
  })
  .meta({ id: 'AgentUsageReport' });

export function registerUsageRoutes(app: FastifyInstance, services: Services): void {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/v2/agent/:projectId/usage',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['agent jobs'],
        operationId: 'getAgentUsage',
        summary: "A project's agent token usage and estimated cost per month",
        description: `Tokens (input, output, cached input) and the estimated cost of the project's agent jobs per UTC month, from \`from\` to \`to\` (inclusive, both default to the current month, at most ${MAX_REPORT_MONTHS} months), and the current month against the monthly token budget. Costs are estimates from the price table (DOCWRIGHT_MODEL_PRICES_FILE).`,
        security: keyOrSessionSecurity,
        params: projectParamsSchema,
        querystring: z.object({ from: month.optional(), to: month.optional() }),
        response: {
          200: usageReportSchema,
          400: problemSchema.describe(`from or to is not a month, from is after to, or the range is longer than ${MAX_REPORT_MONTHS} months.`),
          ...authProblems,
        },
      },
    },
    async (request) => {
      const project = await services.projects.get(request.params.projectId);
      return usageReport(
        { database: services.database, clock: services.clock, defaultMonthlyTokenBudget: services.config.usage.monthlyTokenBudget },
        project,
        request.query,
      );
    },
  );
}
