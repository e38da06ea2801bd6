import { DocwrightError } from '../../core/errors.js';
import { redactSecrets } from '../redact.js';

/**
 * Turns a forge API failure into a DocwrightError whose code says what the project owner has
 * to fix. The forge's own message is kept (redacted) because it is usually the most precise
 * explanation there is ("No commits between main and docwright/…").
 */
export type ForgeName = 'GitHub' | 'GitLab';

export function forgeHttpError(forge: ForgeName, action: string, status: number, detail: string | undefined, secrets: readonly string[] = []): DocwrightError {
  const said = detail !== undefined && detail.length > 0 ? `: ${redactSecrets(detail, secrets).slice(0, 1000)}` : '';
  const what = `${forge} answered HTTP ${status} while ${action}${said}`;
  if (status === 401) {
    return new DocwrightError('forge_auth_failed', `${what}. The project's ${forge} credentials are invalid or expired.`, { status: 502 });
  }
  if (status === 403) {
    return new DocwrightError('forge_permission_denied', `${what}. The project's ${forge} credentials lack the needed permission, or a rate limit was hit.`, {
      status: 502,
    });
  }
  if (status === 404) {
    return new DocwrightError('forge_repository_not_found', `${what}. The repository does not exist or the credentials cannot see it.`, { status: 502 });
  }
  if (status === 429 || status >= 500) {
    return new DocwrightError('forge_unavailable', `${what}. Try again later.`, { status: 503 });
  }
  return new DocwrightError('forge_request_failed', `${what}.`, { status: 502 });
}

export function forgeUnreachable(forge: ForgeName, action: string, cause: unknown, secrets: readonly string[] = []): DocwrightError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new DocwrightError('forge_unreachable', `${forge} could not be reached while ${action}: ${redactSecrets(reason, secrets)}`, { status: 503 });
}

export function forgeNotConfigured(message: string): DocwrightError {
  return new DocwrightError('forge_not_configured', message, { status: 400 });
}
