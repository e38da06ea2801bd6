import type { FastifyInstance } from 'fastify';
import { validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { problemSchema } from '../app/problem.js';
import type { Services } from '../app/services.js';
import { authProblems, keyOrSessionSecurity, projectParamsSchema } from '../app/project-route-schemas.js';
import { createAnalyticsService, type AnalyticsService } from './create-analytics-service.js';
import {
  dailyQuerySchema,
  dailyResponseSchema,
  eventsBodySchema,
  eventsResponseSchema,
  rangeQuerySchema,
  trafficResponseSchema,
  viewsResponseSchema,
  visitorsQuerySchema,
  visitorsResponseSchema,
  ingestUnavailable,
  reportUnavailable,
} from './analytics-schemas.js';
import { BeaconSenderStore } from './beacon-sender-store.js';
import { BeaconVisitorCap } from './beacon-visitor-cap.js';
import { SharedWindowLimiter } from '../rate-limit/shared-window-limiter.js';
import { registerCollectRoutes } from './collect-routes.js';
import { normaliseAuthority } from './verification/signed-authority.js';
import { startAnalyticsMaintenance } from './analytics-maintenance.js';
import { parseDateOrDateTime } from './parse-instant.js';
import { registerReportRoutes } from './reports/report-routes.js';
import { VisitorIdentity } from './visitor-identity.js';

/** 1,000 events of a few hundred bytes each fit with room to spare. */
export const EVENTS_BODY_LIMIT = 1_048_576;

const bound = (value: string | undefined): number | null => (value === undefined ? null : parseDateOrDateTime(value));

const security = keyOrSessionSecurity;
const badInput = { 400: problemSchema.describe('Invalid parameters (errors lists each field), or dateFrom after dateTo.') };

/**
 * The analytics API (/v1/analytics/…), the page beacon and the analytics maintenance
 * (background folding, retention) of this process.
 */
export async function registerAnalyticsRoutes(
  app: FastifyInstance,
  services: Services,
  service: AnalyticsService = createAnalyticsService(services, app.log),
): Promise<void> {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  const maintenance = startAnalyticsMaintenance(service, app.log);
  // The agent's query_analytics tool reads through this service too: one set of report threads per process.
  const unshare = services.agentAnalytics.share(service);
  // Deleting a project removes its analytics first (ProjectDeletion runs removers before
  // the project's rows go, while analytics_sites still maps the project).
  const removeAnalytics = async (projectId: string): Promise<void> => {
    await service.deleteProjectData(projectId);
  };
  services.projectDataRemovers.push(removeAnalytics);
  app.addHook('onClose', async () => {
    const index = services.projectDataRemovers.indexOf(removeAnalytics);
    if (index !== -1) services.projectDataRemovers.splice(index, 1);
    maintenance.stop();
    unshare();
    await service.close();
  });

  typed.get(
    '/v1/analytics/:projectId/visitors',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['analytics'],
        operationId: 'getVisitors',
        summary: 'Get unique visitors',
        description:
          'Site-wide totals and per-page unique visitors, human and ai, in [dateFrom, dateTo) UTC. Crawlers (ai-search, ai-training, bot) are not counted here; see /traffic. Pages are ordered by total descending, then path ascending (UTF-16 code units), unless sort and order ask for another count or direction; ties are always broken by path ascending, so offset pages never overlap or skip. hasMore is exact.',
        security,
        params: projectParamsSchema,
        querystring: visitorsQuerySchema,
        response: { 200: visitorsResponseSchema, ...badInput, ...authProblems, ...reportUnavailable },
      },
    },
    async (request) => {
      const { dateFrom, dateTo, limit, offset, sort, order } = request.query;
      return service.visitors(request.params.projectId, { from: bound(dateFrom), to: bound(dateTo), limit, offset, sort, order });
    },
  );

  typed.get(
    '/v1/analytics/:projectId/views',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['analytics'],
        operationId: 'getViews',
        summary: 'Get page views',
        description:
          'The companion of /visitors, with the same query parameters and shape: site-wide totals and per-page views in [dateFrom, dateTo) UTC, where a view is a stored hit of class human or ai, so total = human + ai. Crawler hits (ai-search, ai-training, bot) are not views, as they are not visitors; see /traffic. Ordered like /visitors (total descending, then path ascending, unless sort and order say otherwise); hasMore is exact.',
        security,
        params: projectParamsSchema,
        querystring: visitorsQuerySchema,
        response: { 200: viewsResponseSchema, ...badInput, ...authProblems, ...reportUnavailable },
      },
    },
    async (request) => {
      const { dateFrom, dateTo, limit, offset, sort, order } = request.query;
      return service.views(request.params.projectId, { from: bound(dateFrom), to: bound(dateTo), limit, offset, sort, order });
    },
  );

  typed.get(
    '/v1/analytics/:projectId/visitors/daily',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['analytics'],
        operationId: 'getDailyVisitors',
        summary: 'Get unique visitors per day',
        description:
          'Site-wide unique human, ai and total visitors for every UTC day of the range, at most 366 days. Defaults to the last 30 days, today included.',
        security,
        params: projectParamsSchema,
        querystring: dailyQuerySchema,
        response: { 200: dailyResponseSchema, ...badInput, ...authProblems, ...reportUnavailable },
      },
    },
    async (request) => service.daily(request.params.projectId, { from: bound(request.query.dateFrom), to: bound(request.query.dateTo) }),
  );

  typed.get(
    '/v1/analytics/:projectId/traffic',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['analytics'],
        operationId: 'getTraffic',
        summary: 'Get traffic by class and agent',
        description:
          'Hits and unique visitors in [dateFrom, dateTo) for each of the five classes (human, ai, ai-search, ai-training, bot) and for each named agent (ChatGPT, Claude, Perplexity, GPTBot, Googlebot…), busiest first, at most 100 agents.',
        security,
        params: projectParamsSchema,
        querystring: rangeQuerySchema,
        response: { 200: trafficResponseSchema, ...badInput, ...authProblems, ...reportUnavailable },
      },
    },
    async (request) => service.traffic(request.params.projectId, { from: bound(request.query.dateFrom), to: bound(request.query.dateTo) }),
  );

  registerReportRoutes(app, service, services.clock);

  // The events body is parsed on an ingest worker thread, not here: this scope hands the
  // route the raw bytes, and skips the body schema (which stays, for the OpenAPI document).
  await app.register(async (scope) => {
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: EVENTS_BODY_LIMIT }, (_request, body, done) => done(null, body));
    scope.withTypeProvider<ZodTypeProvider>().post(
      '/v1/analytics/:projectId/events',
      {
        config: { access: 'ingest' },
        bodyLimit: EVENTS_BODY_LIMIT,
        validatorCompiler: (route) =>
          route.httpPart === 'body' ? (data: unknown) => ({ value: data }) : validatorCompiler(route as unknown as Parameters<typeof validatorCompiler>[0]),
        schema: {
          tags: ['analytics'],
          operationId: 'sendEvents',
          summary: 'Send page hits',
          description:
            'Admin or ingest key. Up to 1,000 hits per request, body up to 1 MiB. Each event is validated on its own: invalid ones are listed in rejected with their index and a code, the others are stored. An event id makes retries count once.',
          security,
          params: projectParamsSchema,
          body: eventsBodySchema,
          response: {
            202: eventsResponseSchema,
            400: problemSchema.describe('Not JSON, not { events: [...] }, or more than 1,000 events.'),
            413: problemSchema.describe('Body over 1 MiB.'),
            ...authProblems,
            ...ingestUnavailable,
          },
        },
      },
      async (request, reply) => {
        const raw = request.body as unknown;
        const body = typeof raw === 'string' ? Buffer.from(raw) : (raw as Buffer);
        const result = await service.ingestBody(request.params.projectId, body);
        return reply.status(202).send(result);
      },
    );
  });

  const identity = new VisitorIdentity(services.config.secret);
  const cap = new BeaconVisitorCap({
    store: new BeaconSenderStore(services.database),
    identity,
    clock: services.clock,
    limit: services.config.analytics.beaconVisitorsPerAddress,
    logger: app.log,
  });
  const perMinute = services.config.analytics.beaconRateLimitPerMinute;
  const limiter =
    perMinute === 0
      ? null
      : new SharedWindowLimiter(services.database, services.clock, { bucket: 'beacon', limit: perMinute, windowMs: 60_000 }, (error) =>
          app.log.error({ err: error }, 'deleting old beacon rate counters failed'),
        );
  app.addHook('onClose', async () => {
    await cap.settled();
    await limiter?.settled();
  });
  await registerCollectRoutes(app, {
    analytics: service,
    projects: services.projects,
    limiter,
    identity,
    cap,
    ownHost: () => normaliseAuthority(new URL(services.config.publicUrl).host),
  });
}
