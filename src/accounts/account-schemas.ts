import { z } from 'zod';
import { problemSchema } from '../app/problem.js';
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from './password-hasher.js';
import { USER_ROLES } from './user.js';

export const emailSchema = z.string().trim().pipe(z.email().max(254)).describe('An email address; unique regardless of capitalisation.');
export const newPasswordSchema = z
  .string()
  .min(PASSWORD_MIN_LENGTH, `must be at least ${PASSWORD_MIN_LENGTH} characters`)
  .max(PASSWORD_MAX_LENGTH, `must be at most ${PASSWORD_MAX_LENGTH} characters`)
  .describe(`${PASSWORD_MIN_LENGTH} to ${PASSWORD_MAX_LENGTH} characters; stored as an argon2id hash.`);
export const roleSchema = z
  .enum(USER_ROLES as ['admin', 'member'])
  .describe('admin manages projects, keys and users; member runs jobs, reads analytics and merges local pull requests.');

const mustChangePasswordSchema = z
  .boolean()
  .describe('True after an admin reset the password: until POST /v1/session/password sets a new one, other routes answer 403 password_change_required.');
export const userSchema = z
  .object({ id: z.string(), email: z.string(), role: roleSchema, createdAt: z.string().describe('ISO 8601'), mustChangePassword: mustChangePasswordSchema })
  .meta({ id: 'User' });
export const sessionUserSchema = z
  .object({ id: z.string(), email: z.string(), role: roleSchema, mustChangePassword: mustChangePasswordSchema })
  .meta({ id: 'SessionUser' });
const csrfTokenSchema = z.string().describe('Send it as X-CSRF-Token with every POST, PUT, PATCH and DELETE of this browser.');

export const sessionStateSchema = z
  .object({
    setupRequired: z.boolean().describe('True while no user exists: create the first admin with POST /v1/session/setup.'),
    user: sessionUserSchema.nullable(),
    csrfToken: csrfTokenSchema,
  })
  .meta({ id: 'SessionState' });
export const signedInSchema = z.object({ user: sessionUserSchema, csrfToken: csrfTokenSchema }).meta({ id: 'SignedIn' });

export const setupBodySchema = z.object({
  setupToken: z.string().min(1).max(200).describe('The token the server prints in its log at start-up while no user exists.'),
  email: emailSchema,
  password: newPasswordSchema,
});
/** Sign-in accepts any non-empty password: a policy changed later must not lock old accounts out early. */
export const signInBodySchema = z.object({ email: z.string().trim().min(1).max(254), password: z.string().min(1).max(PASSWORD_MAX_LENGTH) });
export const newUserBodySchema = z.object({ email: emailSchema, password: newPasswordSchema, role: roleSchema.default('member') });
export const userParamsSchema = z.object({ userId: z.string().min(1).max(100) });
export const changePasswordBodySchema = z.object({
  currentPassword: z.string().min(1).max(PASSWORD_MAX_LENGTH).describe('The password in use now (after a reset: the temporary one).'),
  newPassword: newPasswordSchema,
});
export const roleBodySchema = z.object({ role: roleSchema });
export const passwordResetSchema = z
  .object({
    user: userSchema,
    temporaryPassword: z.string().describe('Shown once: give it to the user, who must replace it at their next sign-in.'),
  })
  .meta({ id: 'PasswordReset' });

export const csrfProblem = { 403: problemSchema.describe('csrf_failed: X-CSRF-Token missing or wrong; or forbidden: not an admin.') };
export const sessionProblems = {
  401: problemSchema.describe('Not signed in (no valid dw_session cookie).'),
  403: problemSchema.describe(
    'csrf_failed: X-CSRF-Token missing or wrong; forbidden: not an admin; password_change_required: set a new password first (POST /v1/session/password).',
  ),
};
export const badBody = { 400: problemSchema.describe('The body is not valid: errors[] lists the fields.') };
