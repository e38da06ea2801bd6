import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyRequest } from 'fastify';
import { DocwrightError } from '../core/errors.js';
import cookie from '@fastify/cookie';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { fastifyTrustProxy } from '../config/trust-proxy.js';
import type { Logger } from './logger.js';
import type { Services } from './services.js';
import { installAuthentication } from './authenticate.js';
import { clientErrorHandler } from './client-error-handler.js';
import { capConnectionsPerClient } from './connection-cap.js';
import { installErrorHandling, sendProblem } from './error-handler.js';
import { buildProblem } from './problem.js';
import { registerHealthRoutes } from './health-routes.js';
import { lazyChildLoggerFactory } from './lazy-child-logger.js';
import { swaggerOptions } from './openapi-document.js';
import { RouteMethods } from './route-methods.js';

export interface AppOptions {
  services: Services;
  logger: Logger;
  /** Feature route plugins, registered after the core (auth, errors, docs). */
  features?: ReadonlyArray<(app: FastifyInstance, services: Services) => void | Promise<void>>;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * No route takes a compressed body: say so (415 with `Accept-Encoding: identity`, RFC 9110
 * §15.5.16) rather than fail to parse it as JSON.
 */
function compressedBody(request: FastifyRequest): DocwrightError | undefined {
  const encoding = request.headers['content-encoding']?.trim().toLowerCase();
  if (encoding === undefined || encoding === '' || encoding === 'identity') return undefined;
  const length = request.headers['content-length'];
  if (request.headers['transfer-encoding'] === undefined && (length === undefined || length === '0')) return undefined;
  return new DocwrightError('unsupported_content_encoding', `Content-Encoding "${encoding}" is not accepted; send the body uncompressed.`, {
    status: 415,
    headers: { 'Accept-Encoding': 'identity' },
  });
}

/** Builds the HTTP app without listening, so tests drive it with inject() or a real port. */
export async function buildApp(options: AppOptions): Promise<FastifyInstance> {
  const { services, logger } = options;
  const timeouts = services.config.http;
  const app = Fastify({
    // Widened on purpose: Fastify infers the app's logger type from this option, and pino's Logger would make the app incompatible with FastifyInstance.
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- the assertion changes inference, which the rule cannot see
    loggerInstance: logger as FastifyBaseLogger,
    childLoggerFactory: lazyChildLoggerFactory,
    bodyLimit: services.config.bodyLimit,
    // Deadlines against clients that hold connections open by sending slowly (slowloris).
    // Node applies headersTimeout and requestTimeout to *receiving* the request only: once
    // the last byte of the request is in, a long response (an event stream, a report that
    // folds a bulk load first) is not cut. Node checks them every connectionsCheckingInterval
    // (30 s by default), so a deadline would be overshot by up to that much.
    http: {
      headersTimeout: timeouts.headersTimeoutMs,
      requestTimeout: timeouts.requestTimeoutMs,
      connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(timeouts.headersTimeoutMs / 4))),
    },
    requestTimeout: timeouts.requestTimeoutMs,
    keepAliveTimeout: timeouts.keepAliveTimeoutMs,
    // No byte either way for this long: a stuck handler or a vanished peer. Event streams
    // write a keep-alive every 15 s, so they are never idle this long (config enforces ≥ 20 s).
    connectionTimeout: timeouts.idleTimeoutMs,
    clientErrorHandler,
    trustProxy: fastifyTrustProxy(services.config.trustProxy),
    // A caller-supplied id is kept when it is safe to echo, so traces join up across services.
    genReqId: (request) => {
      const supplied = request.headers['x-request-id'];
      return typeof supplied === 'string' && REQUEST_ID.test(supplied) ? supplied : randomUUID();
    },
    logController: new LogController({
      requestIdLogLabel: 'requestId',
      // Probes hit these every few seconds; logging them would drown real traffic.
      disableRequestLogging: (request) => request.url === '/healthz' || request.url === '/readyz',
    }),
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    routerOptions: { ignoreTrailingSlash: true },
    // Errors raised by the router itself, before any hook runs, still answer as problems.
    frameworkErrors: (error, request, reply) => {
      const tooLong = error.code === 'FST_ERR_MAX_PARAM_LENGTH';
      reply.header('X-Request-Id', request.id);
      void sendProblem(
        reply,
        buildProblem({
          status: tooLong ? 414 : 400,
          code: tooLong ? 'uri_too_long' : 'bad_url',
          detail: tooLong ? 'A path parameter is longer than 100 characters.' : 'The request URL is malformed.',
          requestId: request.id,
        }),
      );
    },
  });
  // Behind a proxy every client shares its address: the proxy limits its clients instead.
  if (services.config.maxConnectionsPerClient > 0 && services.config.trustProxy === false)
    capConnectionsPerClient(app.server, services.config.maxConnectionsPerClient);
  const routeMethods = new RouteMethods();
  routeMethods.watch(app);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  // Callback-style hooks where nothing is awaited: an async hook costs a promise per request.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('X-Request-Id', request.id);
    done(compressedBody(request));
  });
  installErrorHandling(app, routeMethods);
  // An empty JSON body (e.g. a bodiless POST …/archive sent with Content-Type: application/json)
  // is no body rather than a parse error; routes that need a body still reject it by schema.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    return parseJson(request, text, done);
  });
  // Fastify accepts text/plain everywhere by default; only the page beacon takes it
  // (collect-routes.ts), so every other route answers 415 for it.
  app.removeContentTypeParser('text/plain');
  // While draining, each in-flight response closes its keep-alive connection, so close()
  // finishes as soon as the last request does instead of waiting for idle sockets.
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('Connection', 'close');
    done(null, payload);
  });

  await app.register(swagger, swaggerOptions(services.config.publicUrl));
  await app.register(swaggerUi, { routePrefix: '/docs', uiConfig: { docExpansion: 'list', deepLinking: true }, staticCSP: true });
  app.get('/openapi.json', { schema: { hide: true } }, async () => app.swagger());

  app.decorateRequest('idempotency', null);
  // Parses the Cookie header on onRequest (before authentication) and writes Set-Cookie.
  await app.register(cookie);
  installAuthentication(app, { keys: services.keys, sessions: services.sessions, projects: services.projects, instanceSecret: services.config.secret });
  registerHealthRoutes(app, services.database, services.readiness);
  for (const feature of options.features ?? []) await feature(app, services);
  return app;
}
