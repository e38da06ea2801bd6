import type { ApiError } from '../api/api-error';

interface Props {
  error: ApiError;
  /** What was being attempted, e.g. "Could not load the jobs". */
  title?: string;
  onRetry?: () => void;
}

/** Every failure reads the same way: what failed, the server's words, and its stable code. */
export function ErrorMessage({ error, title, onRetry }: Props) {
  const fields = error.problem.errors ?? [];
  return (
    <div class="alert alert-error" role="alert">
      <p class="alert-title">
        {title ?? 'Something went wrong'} <code class="error-code">{error.code}</code>
      </p>
      <p>{error.message}</p>
      {fields.length > 0 && (
        <ul class="alert-list">
          {fields.map((field) => (
            <li key={field.path}>
              <code>{field.path}</code> {field.message}
            </li>
          ))}
        </ul>
      )}
      {error.problem.files && error.problem.files.length > 0 && (
        <ul class="alert-list">
          {error.problem.files.map((file) => (
            <li key={file}>
              <code>{file}</code>
            </li>
          ))}
        </ul>
      )}
      {(onRetry !== undefined || Boolean(error.problem.requestId)) && (
        <p class="alert-meta">
          {onRetry && (
            <button type="button" class="btn btn-small" onClick={onRetry}>
              Try again
            </button>
          )}
          {error.problem.requestId && <span class="muted">Request id {error.problem.requestId}</span>}
        </p>
      )}
    </div>
  );
}
