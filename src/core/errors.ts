/**
 * The one error base of Docwright. Every error that can reach an API caller, a CLI user
 * or a job's `error` field is a DocwrightError with a stable machine `code`; the HTTP
 * layer turns it into an RFC 9457 problem body. Anything else is an internal bug and is
 * reported as a generic 500 without its message.
 */
export interface FieldError {
  path: string;
  message: string;
}

export interface DocwrightErrorOptions {
  status?: number;
  title?: string;
  errors?: FieldError[];
  cause?: unknown;
  headers?: Record<string, string>;
}

export class DocwrightError extends Error {
  readonly code: string;
  readonly status: number;
  readonly title: string;
  readonly errors: FieldError[] | undefined;
  readonly headers: Record<string, string>;

  constructor(code: string, message: string, options: DocwrightErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'DocwrightError';
    this.code = code;
    this.status = options.status ?? 500;
    this.title = options.title ?? defaultTitle(this.status);
    this.errors = options.errors;
    this.headers = options.headers ?? {};
  }
}

export function isDocwrightError(value: unknown): value is DocwrightError {
  return value instanceof DocwrightError;
}

export const validationFailed = (message: string, errors: FieldError[]): DocwrightError =>
  new DocwrightError('validation_failed', message, { status: 400, errors });

export const badRequest = (code: string, message: string): DocwrightError => new DocwrightError(code, message, { status: 400 });

export const unauthorized = (): DocwrightError =>
  new DocwrightError('unauthorized', 'A valid API key is required in the Authorization header as "Bearer <key>".', {
    status: 401,
    headers: { 'WWW-Authenticate': 'Bearer realm="docwright"' },
  });

export const notFound = (message = 'The requested resource does not exist.'): DocwrightError => new DocwrightError('not_found', message, { status: 404 });

export const conflict = (message: string, code = 'conflict'): DocwrightError => new DocwrightError(code, message, { status: 409 });

export const configurationError = (message: string): DocwrightError => new DocwrightError('invalid_configuration', message, { status: 500 });

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  409: 'Conflict',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

export function defaultTitle(status: number): string {
  return TITLES[status] ?? (status >= 500 ? 'Internal Server Error' : 'Error');
}
