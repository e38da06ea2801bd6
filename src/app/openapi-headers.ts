import type { OpenAPIV3_1 } from 'openapi-types';

// The headers the OpenAPI document names, defined once under components and referenced by
// the operations that send or read them (openapi-document.ts). Their names are what a
// route's `config.openapi` may list.

export const RESPONSE_HEADERS = {
  'X-Request-Id': {
    description: "This request's id (the caller's own X-Request-Id when it is 1 to 128 of A-Z a-z 0-9 . _ : -). Quote it when reporting a problem.",
    schema: { type: 'string', minLength: 1, maxLength: 128 },
  },
  RateLimit: {
    description:
      'The project\'s remaining budget of creates and messages, and the seconds until one frees up: `"agent";r=REMAINING;t=SECONDS` (IETF RateLimit header fields).',
    schema: { type: 'string', pattern: '^"agent";r=\\d+;t=\\d+$' },
  },
  'RateLimit-Policy': {
    description: 'The rate-limit policy: `"agent";q=LIMIT;w=WINDOW_SECONDS` (100 per sliding hour unless configured per project).',
    schema: { type: 'string', pattern: '^"agent";q=\\d+;w=\\d+$' },
  },
  'Retry-After': {
    description: 'Seconds to wait before sending the request again.',
    schema: { type: 'string', pattern: '^\\d+$' },
  },
  'Idempotent-Replayed': {
    description: 'true when this answer is the stored answer of an earlier request with the same Idempotency-Key (nothing was done again).',
    schema: { type: 'string', enum: ['true'] },
  },
  Location: {
    description: 'The path of the resource this request created.',
    schema: { type: 'string', format: 'uri-reference' },
  },
  'Accept-Encoding': {
    description: 'identity: request bodies must not be compressed.',
    schema: { type: 'string', enum: ['identity'] },
  },
} satisfies Record<string, OpenAPIV3_1.HeaderObject>;

export type ResponseHeaderName = keyof typeof RESPONSE_HEADERS;

export const REQUEST_HEADERS = {
  'Idempotency-Key': {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      "Makes a retry safe: a second request with the same key and body within 24 hours answers the first one's stored response (with Idempotent-Replayed: true) instead of acting again; another body answers 422, a request still running 409. 1 to 255 visible ASCII characters.",
    schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7E]+$' },
  },
  'Last-Event-ID': {
    name: 'Last-Event-ID',
    in: 'header',
    required: false,
    description: 'The id of the last event received: the stream resumes after it (EventSource sends it when reconnecting). Wins over ?lastEventId=.',
    schema: { type: 'string', pattern: '^\\d+$' },
  },
} satisfies Record<string, OpenAPIV3_1.ParameterObject>;

export type RequestHeaderName = keyof typeof REQUEST_HEADERS;

/** What a route adds to its operation beyond its zod schemas; set as the route's `config.openapi`. */
export interface OperationDocs {
  /** Request headers the operation reads. */
  requestHeaders?: RequestHeaderName[];
  /**
   * Response headers by status code ('2XX' style ranges not used). A header named with a
   * trailing `!` is sent on every such response (required); otherwise only sometimes.
   */
  responseHeaders?: Record<number, Array<ResponseHeaderName | `${ResponseHeaderName}!`>>;
  /** The success answer (this status) is a stream of Server-Sent Events, not JSON. */
  eventStream?: number;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    openapi?: OperationDocs;
  }
}

/** The component name of a header: `X-Request-Id` → `XRequestId`. */
export const componentName = (header: string): string => header.replace(/[^A-Za-z0-9]/g, '');
