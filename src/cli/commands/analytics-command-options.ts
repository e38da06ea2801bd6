import { loadClientConfig } from '../../config/load-config.js';
import { DocwrightError } from '../../core/errors.js';

/** --project, or DOCWRIGHT_PROJECT. */
export function resolveProject(option: string | undefined): string {
  const projectId = option ?? loadClientConfig().projectId;
  if (projectId === undefined || projectId.trim() === '') throw usageError('--project is required (or set DOCWRIGHT_PROJECT).');
  return projectId;
}

/** Raised inside an action, where commander no longer prints its own errors; the CLI prints a DocwrightError's message. */
export function usageError(message: string): DocwrightError {
  return new DocwrightError('invalid_argument', message, { status: 400 });
}
