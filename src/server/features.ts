import type { FastifyInstance } from 'fastify';
import type { Services } from '../app/services.js';
import { registerProjectRoutes } from '../projects/project-routes.js';
import { registerJobRoutes } from '../jobs/job-routes.js';
import { registerJobConversationRoutes } from '../jobs/job-conversation-routes.js';
import { registerUsageRoutes } from '../jobs/usage-routes.js';
import { registerLocalPullRequestRoutes } from '../pull-requests/local-pull-request-routes.js';
import { registerAnalyticsRoutes } from '../analytics/analytics-routes.js';
import { registerDashboard } from '../dashboard/register-dashboard.js';
import { registerSessionRoutes } from '../accounts/session-routes.js';
import { registerUserRoutes } from '../accounts/user-routes.js';
import { registerProjectManagementRoutes } from '../projects/project-management-routes.js';
import { registerApiKeyRoutes } from '../keys/api-key-routes.js';
import { registerMcpRoutes } from '../mcp/mcp-routes.js';
import { registerWebhookRoutes } from '../webhooks/webhook-routes.js';

/** The route plugins of every feature, in registration order. */
export const features: ReadonlyArray<(app: FastifyInstance, services: Services) => void | Promise<void>> = [
  registerSessionRoutes,
  registerUserRoutes,
  registerProjectRoutes,
  registerProjectManagementRoutes,
  registerApiKeyRoutes,
  registerJobRoutes,
  registerJobConversationRoutes,
  registerUsageRoutes,
  registerLocalPullRequestRoutes,
  registerAnalyticsRoutes,
  registerMcpRoutes,
  registerWebhookRoutes,
  // Last: the page routes are a catch-all under /projects, after every API route.
  registerDashboard,
];
