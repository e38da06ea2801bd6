import { z } from 'zod';
import { problemSchema } from './problem.js';

// What every project-scoped route of every feature declares alike: its path parameter, and the
// security and problem responses of the auth hook (authenticate.ts) for `access: 'admin'`.

export const projectParamsSchema = z.object({ projectId: z.string().min(1).max(100) });

/** Routes that take an admin key of their project or a dashboard session. */
export const keyOrSessionSecurity: Array<Record<string, string[]>> = [{ bearerAuth: [] }, { cookieAuth: [] }];

export const authProblems = {
  401: problemSchema.describe('Missing, malformed, unknown, revoked or expired key, and no valid session.'),
  403: problemSchema.describe('The key lacks the scope for this operation; or csrf_failed (a session request without X-CSRF-Token).'),
  404: problemSchema.describe('Unknown project, or one the key does not grant.'),
};
