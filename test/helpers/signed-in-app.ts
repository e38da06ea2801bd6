import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/app/build-app.js';
import { createLogger, type Logger } from '../../src/app/logger.js';
import type { Services } from '../../src/app/services.js';
import { features } from '../../src/server/features.js';
import { SessionStore, type ActiveSession } from '../../src/accounts/session-store.js';
import type { UserRole } from '../../src/accounts/user.js';

const TEST_SESSION_PREFIX = 'test.';
/** The CSRF token of every test session (the shape real tokens have). */
const TEST_CSRF_TOKEN = 'T'.repeat(43);

/**
 * Sessions whose cookie names the user (`test.<base64url JSON>`), so a test can act as
 * anyone without creating accounts; real cookies still work. Everything else (the auth
 * hook, CSRF, roles, request.user) is the production code path.
 */
class TestSessions extends SessionStore {
  override async authenticate(secret: string): Promise<ActiveSession | null> {
    if (!secret.startsWith(TEST_SESSION_PREFIX)) return super.authenticate(secret);
    const user = JSON.parse(Buffer.from(secret.slice(TEST_SESSION_PREFIX.length), 'base64url').toString('utf8')) as {
      id: string;
      email: string;
      role: UserRole;
    };
    return { id: `test-session-${user.id}`, user, csrfToken: TEST_CSRF_TOKEN };
  }
}

/** The real app, with sessions that `signedIn()` headers open. */
export function buildSignedInApp(services: Services, logger: Logger = createLogger({ level: 'silent' })): Promise<FastifyInstance> {
  return buildApp({ services: { ...services, sessions: new TestSessions(services.database.db, services.clock) }, logger, features });
}

/** Headers that sign a request in as `user` (a session cookie and its CSRF token). */
export const signedIn = (
  user: { id: string; email: string; role: string } = { id: 'u1', email: 'reviewer@example.com', role: 'member' },
): Record<string, string> => ({
  cookie: `dw_session=${TEST_SESSION_PREFIX}${Buffer.from(JSON.stringify(user)).toString('base64url')}`,
  'x-csrf-token': TEST_CSRF_TOKEN,
});
