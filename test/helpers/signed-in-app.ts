import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app/build-app.js';
import { createLogger, type Logger } from '../../src/app/logger.js';
import type { Services } from '../../src/app/services.js';
import { features } from '../../src/server/features.js';

/** The header that signs a test request in as `{id, email, role}` (JSON). */
export const TEST_USER_HEADER = 'x-test-user';

/**
 * Until the accounts feature sets `request.user` from a session cookie, tests sign in
 * through this hook, which sets the same property that `signedInUser(request)` reads.
 */
function testSignIn(app: FastifyInstance): void {
  if (!app.hasRequestDecorator('user')) app.decorateRequest('user', null);
  app.addHook('onRequest', async (request) => {
    const header = request.headers[TEST_USER_HEADER];
    if (typeof header === 'string') (request as { user?: unknown }).user = JSON.parse(header) as unknown;
  });
}

/** The real app with the test sign-in hook in front of every feature. */
export function buildSignedInApp(services: Services, logger: Logger = createLogger({ level: 'silent' })): Promise<FastifyInstance> {
  return buildApp({ services, logger, features: [testSignIn, ...features] });
}

export const signedIn = (user: { id: string; email: string; role: string } = { id: 'u1', email: 'reviewer@example.com', role: 'member' }): Record<string, string> => ({
  [TEST_USER_HEADER]: JSON.stringify(user),
});
