import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import type { OpenAPIV3_1 } from 'openapi-types';
import type { RouteAccess } from './authenticate.js';
import { componentName, REQUEST_HEADERS, RESPONSE_HEADERS, type OperationDocs, type RequestHeaderName, type ResponseHeaderName } from './openapi-headers.js';

// Makes the generated OpenAPI document say what the server does, so a generated client can
// trust it: problems as application/problem+json, event streams as text/event-stream, the
// answers every route can give (413, 414, 415, 431), headers, operation ids, servers,
// `security: []` on public operations, and component schemas without a fragment `$id`
// (JSON Schema 2020-12 allows no fragment there). Routes declare what only they know
// (operationId, their own problems, `config.openapi`); the rest is applied here, to every
// route, so routes added later follow the same rules (test/foundation/openapi-routes.test.ts).

const ROUTE_NOTE = 'x-docwright-route';
const PROBLEM_TYPE = 'application/problem+json';
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

interface RouteNote {
  access: RouteAccess;
  docs: OperationDocs;
}

type Operation = OpenAPIV3_1.OperationObject & { [ROUTE_NOTE]?: RouteNote };
type Responses = OpenAPIV3_1.ResponsesObject;
type ResponseObject = OpenAPIV3_1.ResponseObject;

const problemRef = { $ref: '#/components/schemas/Problem' };

/** Answers any operation can give before its handler runs; added where the route does not document them. */
const COMMON_PROBLEMS: Record<number, { when: (operation: Operation, method: string) => boolean; description: string; headers?: ResponseHeaderName[] }> = {
  400: {
    when: (operation) => (operation.parameters?.length ?? 0) > 0 || operation.requestBody !== undefined,
    description: 'validation_failed (errors[] lists the fields), invalid_json, or bad_url (a malformed percent-encoding).',
  },
  413: { when: (_operation, method) => BODY_METHODS.has(method), description: 'payload_too_large: the request body is larger than the server accepts.' },
  414: {
    when: (operation) => operation.parameters?.some((parameter) => 'in' in parameter && parameter.in === 'path') ?? false,
    description: 'uri_too_long: a path parameter is longer than 100 characters.',
  },
  415: {
    when: (_operation, method) => BODY_METHODS.has(method),
    description: 'unsupported_content_type (send application/json) or unsupported_content_encoding (bodies must not be compressed; see Accept-Encoding).',
    headers: ['Accept-Encoding'],
  },
  431: { when: () => true, description: 'headers_too_large: the request line and headers are larger than 16 KiB. The connection is closed.' },
};
const BODY_METHODS = new Set(['post', 'put', 'patch', 'delete']);

export function swaggerOptions(publicUrl: string): FastifyDynamicSwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Docwright API',
        version: '1.0.0',
        description:
          'Agent jobs that edit documentation and open pull requests (/v2), and unique-visitor analytics that tell humans from AI (/v1). Errors are RFC 9457 problem bodies (application/problem+json).',
        license: { name: 'MIT', identifier: 'MIT' },
      },
      servers: [
        {
          url: '{origin}',
          description: 'A Docwright server (DOCWRIGHT_PUBLIC_URL)',
          variables: { origin: { default: publicUrl.replace(/\/+$/, ''), description: 'Scheme, host and port of the server.' } },
        },
      ],
      components: {
        securitySchemes: {
          bearerAuth: { type: 'http', scheme: 'bearer', description: 'An API key: dw_admin_… (or dw_ingest_… on ingestion routes).' },
          cookieAuth: {
            type: 'apiKey',
            in: 'cookie',
            name: 'dw_session',
            description:
              'A dashboard session (POST /v1/session); the cookie is __Host-dw_session when served over https. POST, PUT, PATCH and DELETE with it must also send X-CSRF-Token, the csrfToken of GET /v1/session (403 csrf_failed otherwise).',
          },
        },
      },
    },
    transform: (input) => {
      const result = jsonSchemaTransform(input);
      const note: RouteNote = { access: input.route.config?.access ?? 'public', docs: input.route.config?.openapi ?? {} };
      return { ...result, schema: { ...result.schema, [ROUTE_NOTE]: note } };
    },
    transformObject: (input) => finishDocument(jsonSchemaTransformObject(input) as OpenAPIV3_1.Document),
  };
}

/** Applies the document-wide rules above; pure, so tests can run it on any document. */
export function finishDocument(document: OpenAPIV3_1.Document): OpenAPIV3_1.Document {
  const components = document.components ?? {};
  const headers: Record<string, OpenAPIV3_1.HeaderObject> = {};
  const parameters: Record<string, OpenAPIV3_1.ParameterObject> = {};
  // A reference may carry no `required` beside it (OpenAPI 3.1): an always-sent header and
  // a sometimes-sent one are two components, each made when first used.
  const headerRef = (name: ResponseHeaderName, required: boolean): OpenAPIV3_1.ReferenceObject => {
    const key = `${componentName(name)}${required ? '' : 'Optional'}`;
    headers[key] ??= { ...RESPONSE_HEADERS[name], required };
    return { $ref: `#/components/headers/${key}` };
  };
  const parameterRef = (name: RequestHeaderName): OpenAPIV3_1.ReferenceObject => {
    parameters[componentName(name)] ??= REQUEST_HEADERS[name];
    return { $ref: `#/components/parameters/${componentName(name)}` };
  };
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const method of METHODS) {
      const operation = item?.[method] as Operation | undefined;
      if (operation) finishOperation(operation, method, path, headerRef, parameterRef);
    }
  }
  components.headers = headers;
  components.parameters = parameters;
  components.schemas = usedSchemas(document, components.schemas ?? {});
  return { ...document, paths: stripSchemaIds(document.paths), components };
}

type HeaderRef = (name: ResponseHeaderName, required: boolean) => OpenAPIV3_1.ReferenceObject;

function finishOperation(
  operation: Operation,
  method: string,
  path: string,
  headerRef: HeaderRef,
  parameterRef: (name: RequestHeaderName) => OpenAPIV3_1.ReferenceObject,
): void {
  const note = operation[ROUTE_NOTE] ?? { access: 'public', docs: {} };
  delete operation['x-docwright-route'];
  if (note.access === 'public' && operation.security === undefined) operation.security = [];
  const parameters = operation.parameters ?? [];
  for (const name of note.docs.requestHeaders ?? []) parameters.push(parameterRef(name));
  if (parameters.length > 0) operation.parameters = parameters;
  const responses: Responses = operation.responses ?? {};
  for (const [status, common] of Object.entries(COMMON_PROBLEMS)) {
    if (responses[status] !== undefined || !common.when(operation, method)) continue;
    responses[status] = { description: common.description, content: { [PROBLEM_TYPE]: { schema: problemRef } } };
    for (const header of common.headers ?? []) addHeader(responses[status], headerRef(header, false), header);
  }
  for (const [status, response] of Object.entries(responses)) {
    const code = Number(status);
    const answer = response as ResponseObject;
    if (code >= 400) problemContent(answer, `${method.toUpperCase()} ${path} ${status}`);
    if (code === note.docs.eventStream) {
      answer.content = {
        'text/event-stream': {
          schema: {
            type: 'string',
            description:
              'Server-Sent Events (https://html.spec.whatwg.org/multipage/server-sent-events.html): `id:`, `event:` and `data:` lines (data is JSON), blank-line separated; `:` lines are keep-alive comments.',
          },
        },
      };
    }
    addHeader(answer, headerRef('X-Request-Id', true), 'X-Request-Id');
    if (code === 429 || code === 503) addHeader(answer, headerRef('Retry-After', code === 429), 'Retry-After');
    for (const declared of note.docs.responseHeaders?.[code] ?? []) {
      const required = declared.endsWith('!');
      const name = (required ? declared.slice(0, -1) : declared) as ResponseHeaderName;
      addHeader(answer, headerRef(name, required), name);
    }
  }
  operation.responses = responses;
}

/** Every error answer is served as application/problem+json; the document says so. */
function problemContent(response: ResponseObject, where: string): void {
  const media = Object.values(response.content ?? {})[0];
  if (!media) throw new Error(`${where}: an error response without a body schema; use problemSchema.`);
  response.content = { [PROBLEM_TYPE]: { ...media, schema: stripSchemaIds(media.schema) } };
}

function addHeader(response: ResponseObject, reference: OpenAPIV3_1.ReferenceObject, name: ResponseHeaderName): void {
  response.headers = { ...response.headers, [name]: reference };
}

/** Removes `$id` and `$schema` from a schema tree: `$id` may not be a fragment (JSON Schema 2020-12), and `$schema` is the document's. */
function stripSchemaIds<T>(value: T): T {
  if (Array.isArray(value)) return value.map((item: unknown) => stripSchemaIds(item)) as T;
  if (typeof value !== 'object' || value === null) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    if ((key === '$id' && typeof child === 'string' && child.startsWith('#')) || key === '$schema') continue;
    copy[key] = stripSchemaIds(child);
  }
  return copy as T;
}

/** The component schemas some operation uses (directly or through another schema), without their `$id`s. */
function usedSchemas(document: OpenAPIV3_1.Document, schemas: Record<string, OpenAPIV3_1.SchemaObject>): Record<string, OpenAPIV3_1.SchemaObject> {
  const cleaned = stripSchemaIds(schemas);
  const used = new Set<string>();
  const pending = [JSON.stringify(document.paths)];
  for (let text = pending.pop(); text !== undefined; text = pending.pop()) {
    for (const match of text.matchAll(/"#\/components\/schemas\/([^"]+)"/g)) {
      const name = match[1] ?? '';
      if (used.has(name) || cleaned[name] === undefined) continue;
      used.add(name);
      pending.push(JSON.stringify(cleaned[name]));
    }
  }
  return Object.fromEntries(Object.entries(cleaned).filter(([name]) => used.has(name)));
}
