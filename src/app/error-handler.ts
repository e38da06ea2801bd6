import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, FastifySchemaValidationError } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { isDocwrightError, type FieldError } from '../core/errors.js';
import { databaseTrouble } from '../db/database-unavailable.js';
import { buildProblem, PROBLEM_CONTENT_TYPE, type Problem } from './problem.js';
import type { RouteMethods } from './route-methods.js';

export function sendProblem(reply: FastifyReply, problem: Problem, headers: Record<string, string> = {}): FastifyReply {
  return reply.status(problem.status).headers(headers).type(PROBLEM_CONTENT_TYPE).serializer(JSON.stringify).send(problem);
}

function fieldPath(instancePath: string, context: string | undefined, missing?: unknown): string {
  const segments = instancePath.split('/').filter(Boolean);
  if (typeof missing === 'string') segments.push(missing);
  if (segments.length === 0) return context ?? '';
  return segments.join('.');
}

/** Maps every error to a problem body; unknown errors become a bare 500 with no detail leaked. */
function toProblem(error: FastifyError, request: FastifyRequest): { problem: Problem; headers: Record<string, string> } {
  const requestId = request.id;
  if (isDocwrightError(error)) {
    return {
      problem: buildProblem({ status: error.status, code: error.code, detail: error.message, requestId, title: error.title, errors: error.errors }),
      headers: error.headers,
    };
  }
  if (hasZodFastifySchemaValidationErrors(error)) {
    // Typed here: the library's declaration imports 'fastify/types/schema', which NodeNext resolution cannot find, so it reads as an unresolved type.
    const errors: FieldError[] = error.validation.map((issue: FastifySchemaValidationError) => ({
      path: fieldPath(issue.instancePath, error.validationContext, (issue.params as { missingProperty?: unknown } | undefined)?.missingProperty),
      message: issue.message ?? 'is invalid',
    }));
    const where = error.validationContext === 'querystring' ? 'query parameters' : error.validationContext === 'params' ? 'path parameters' : 'request body';
    return { problem: buildProblem({ status: 400, code: 'validation_failed', detail: `The ${where} failed validation.`, requestId, errors }), headers: {} };
  }
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return {
        problem: buildProblem({
          status: 415,
          code: 'unsupported_content_type',
          detail: `Content-Type "${request.headers['content-type'] ?? ''}" is not accepted; send application/json.`,
          requestId,
        }),
        headers: {},
      };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return {
        problem: buildProblem({ status: 413, code: 'payload_too_large', detail: 'The request body is larger than the server accepts.', requestId }),
        headers: {},
      };
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return { problem: buildProblem({ status: 400, code: 'invalid_json', detail: 'The request body is not valid JSON.', requestId }), headers: {} };
    default:
      break;
  }
  if (error instanceof SyntaxError && error.statusCode === 400) {
    return { problem: buildProblem({ status: 400, code: 'invalid_json', detail: 'The request body is not valid JSON.', requestId }), headers: {} };
  }
  const trouble = databaseTrouble(error);
  if (trouble !== undefined) {
    // Not the request's fault, and it may well succeed when sent again: say so rather than
    // a bare 500. Job creates and messages are all or nothing even then (docs/operations.md,
    // "Limits across processes").
    const detail =
      trouble === 'database_busy'
        ? 'The database was busy and gave up on this request. Retry after the time in Retry-After.'
        : 'The connection to the database was lost or refused while handling this request. Retry after the time in Retry-After.';
    return { problem: buildProblem({ status: 503, code: trouble, detail, requestId }), headers: { 'Retry-After': trouble === 'database_busy' ? '1' : '2' } };
  }
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500 && !isResponseSerializationError(error)) {
    return { problem: buildProblem({ status, code: 'bad_request', detail: error.message, requestId }), headers: {} };
  }
  return {
    problem: buildProblem({
      status: 500,
      code: 'internal_error',
      detail: 'An internal error occurred. The request id identifies it in the server log.',
      requestId,
    }),
    headers: {},
  };
}

export function installErrorHandling(app: FastifyInstance, routeMethods: RouteMethods): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const { problem, headers } = toProblem(error, request);
    if (problem.status >= 500) request.log.error({ err: error }, 'request failed');
    return sendProblem(reply, problem, headers);
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const allowed = routeMethods.allowed(path);
    if (allowed.length > 0 && !allowed.includes(request.method)) {
      const detail = `${path} does not take ${request.method}; it takes ${allowed.join(', ')}.`;
      return sendProblem(reply, buildProblem({ status: 405, code: 'method_not_allowed', detail, requestId: request.id }), { Allow: allowed.join(', ') });
    }
    return sendProblem(reply, buildProblem({ status: 404, code: 'not_found', detail: `No route ${request.method} ${path}.`, requestId: request.id }));
  });
}
