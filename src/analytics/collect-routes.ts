import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { problemSchema } from '../app/problem.js';
import { badRequest, DocwrightError, notFound } from '../core/errors.js';
import type { ProjectRepository } from '../projects/project-repository.js';
import type { AnalyticsService } from './analytics-service.js';
import { ingestUnavailable } from './analytics-schemas.js';
import { BEACON_SCRIPT, BEACON_SCRIPT_ETAG } from './beacon-script.js';
import type { BeaconVisitorCap } from './beacon-visitor-cap.js';
import { clientKey } from '../rate-limit/client-rate-limiter.js';
import type { SharedWindowLimiter } from '../rate-limit/shared-window-limiter.js';
import type { VisitorIdentity } from './visitor-identity.js';
import { readSignatureField } from './verification/signature-field.js';
import { decodeUtf8Marked } from './utf8-text.js';

/** A beacon is a path and a referrer; anything near this size is not one. */
export const COLLECT_BODY_LIMIT = 16 * 1024;

export interface CollectDependencies {
  analytics: AnalyticsService;
  projects: ProjectRepository;
  /** Beacons per address and project, shared by every process; null when the limit is off. */
  limiter: SharedWindowLimiter | null;
  identity: VisitorIdentity;
  cap: BeaconVisitorCap;
  /**
   * The server's own host (DOCWRIGHT_PUBLIC_URL's): the beacon is a request to this server,
   * so a signature on it must be made for this host. Read per request: the public URL can
   * be derived only once the server listens.
   */
  ownHost: () => string;
}

const paramsSchema = z.object({ projectId: z.string().min(1).max(100) });

function normaliseOrigin(origin: string): string {
  return origin.trim().toLowerCase().replace(/\/+$/, '');
}

/**
 * The request's Origin when the project lets it send beacons. No allowedOrigins means
 * beacons are off: a public endpoint that anyone could fill with hits has to be opted into.
 */
async function allowedOrigin(projects: ProjectRepository, request: FastifyRequest, projectId: string): Promise<string> {
  const project = await projects.find(projectId);
  if (project === null) throw notFound(`No project with id "${projectId}".`);
  const allowed = (project.settings.allowedOrigins ?? []).map(normaliseOrigin);
  const origin = request.headers.origin;
  if (typeof origin === 'string' && origin !== '' && (allowed.includes('*') || allowed.includes(normaliseOrigin(origin)))) return origin;
  throw new DocwrightError(
    'origin_not_allowed',
    allowed.length === 0
      ? "This project accepts no page beacons: add the site's origin to the project setting allowedOrigins."
      : "The request's Origin is not in the project setting allowedOrigins.",
    { status: 403 },
  );
}

function corsHeaders(reply: FastifyReply, origin: string): void {
  reply.header('Access-Control-Allow-Origin', origin).header('Vary', 'Origin');
}

/**
 * The beacon request's own Web Bot Auth headers, as the events API's `webBotAuth` member: a
 * browser-driving agent that signs its requests signs this one too. Malformed or oversized
 * headers are dropped (the view still counts, unverified) rather than failing the beacon.
 */
function ownSignature(request: FastifyRequest): Record<string, string> | undefined {
  const { signature, 'signature-input': signatureInput, 'signature-agent': signatureAgent } = request.headers;
  if (typeof signature !== 'string' || typeof signatureInput !== 'string') return undefined;
  const field = {
    signature,
    signatureInput,
    ...(typeof signatureAgent === 'string' ? { signatureAgent } : {}),
    method: request.method,
    authority: request.host,
    path: request.url,
  };
  const read = readSignatureField(field);
  return read !== null && !('message' in read) ? field : undefined;
}

function beaconFields(body: unknown): { path: unknown; referrer: unknown } {
  let value = body;
  if (typeof value === 'string') {
    try {
      value = JSON.parse(value);
    } catch {
      throw badRequest('invalid_json', 'The beacon body is not valid JSON.');
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw badRequest('invalid_json', 'The beacon body must be a JSON object { path, referrer }.');
  const fields = value as Record<string, unknown>;
  return { path: fields.path, referrer: fields.referrer };
}

/** `GET /script.js` and the public beacon endpoint it posts to. */
export async function registerCollectRoutes(app: FastifyInstance, dependencies: CollectDependencies): Promise<void> {
  const { projects } = dependencies;
  const typed = app.withTypeProvider<ZodTypeProvider>();

  typed.get(
    '/script.js',
    { config: { access: 'public' }, schema: { tags: ['analytics'], summary: 'The page beacon script (no cookies)', hide: true } },
    async (request, reply) => {
      reply
        .header('Cache-Control', 'public, max-age=3600, stale-while-revalidate=86400')
        .header('ETag', BEACON_SCRIPT_ETAG)
        .header('X-Content-Type-Options', 'nosniff')
        .header('Access-Control-Allow-Origin', '*')
        .header('Cross-Origin-Resource-Policy', 'cross-origin');
      if (request.headers['if-none-match'] === BEACON_SCRIPT_ETAG) return reply.status(304).send();
      return reply.type('text/javascript; charset=utf-8').send(BEACON_SCRIPT);
    },
  );

  typed.options('/v1/analytics/:projectId/collect', { config: { access: 'public' }, schema: { hide: true, params: paramsSchema } }, async (request, reply) => {
    const origin = await allowedOrigin(projects, request, request.params.projectId);
    corsHeaders(reply, origin);
    return reply
      .header('Access-Control-Allow-Methods', 'POST')
      .header('Access-Control-Allow-Headers', 'Content-Type')
      .header('Access-Control-Max-Age', '86400')
      .status(204)
      .send();
  });

  // Only the beacon takes text/plain (sendBeacon's CORS-safelisted type, no preflight): the
  // app refuses it everywhere else with 415. Both types reach the route as text, bytes that
  // are not UTF-8 marked (decodeUtf8Marked) so that they reject the beacon as its events would.
  await app.register(async (scope) => {
    const asText = (_request: FastifyRequest, body: Buffer, done: (error: Error | null, body?: unknown) => void) => done(null, decodeUtf8Marked(body));
    scope.addContentTypeParser('text/plain', { parseAs: 'buffer' }, asText);
    scope.removeContentTypeParser('application/json');
    scope.addContentTypeParser('application/json', { parseAs: 'buffer' }, asText);
    registerBeaconRoute(scope.withTypeProvider<ZodTypeProvider>(), dependencies);
  });
}

function registerBeaconRoute(typed: FastifyInstance, dependencies: CollectDependencies): void {
  const { analytics, projects, limiter, identity, cap } = dependencies;
  typed.withTypeProvider<ZodTypeProvider>().post(
    '/v1/analytics/:projectId/collect',
    {
      // Cross-site by design and acting on no cookie credential: no CSRF token to ask for.
      config: { access: 'public', csrf: false },
      bodyLimit: COLLECT_BODY_LIMIT,
      schema: {
        tags: ['analytics'],
        operationId: 'collectPageView',
        summary: 'Record a page view from the page beacon',
        description:
          'Public: no key. Sent by /script.js with navigator.sendBeacon as text/plain (or application/json) {"path", "referrer"}. The Origin header must be in the project setting allowedOrigins ("*" allows any). The visitor is derived from the client address (X-Forwarded-For only from the proxies DOCWRIGHT_TRUST_PROXY names) and the User-Agent header. A request carrying Web Bot Auth headers (Signature, Signature-Input, Signature-Agent) is verified with them; malformed ones are ignored. At most DOCWRIGHT_BEACON_RATE_LIMIT (default 120) beacons per address (an IPv6 /64 counts as one) and project per minute, across all server processes. One address adds at most DOCWRIGHT_BEACON_VISITORS_PER_ADDRESS (default 20) new visitors per project and UTC day; beacons of further new visitors are answered 204 but not recorded.',
        params: paramsSchema,
        response: {
          204: z.null().describe('Recorded.'),
          400: problemSchema.describe('Not a beacon body, or a bad path.'),
          403: problemSchema.describe('Origin not allowed.'),
          404: problemSchema.describe('Unknown project.'),
          413: problemSchema.describe('Body over 16 KiB.'),
          429: problemSchema.describe('Too many beacons from this address.'),
          ...ingestUnavailable,
        },
      },
    },
    async (request, reply) => {
      const { projectId } = request.params;
      const origin = await allowedOrigin(projects, request, projectId);
      corsHeaders(reply, origin);
      const retryAfter = limiter === null ? 0 : await limiter.take(`${projectId}:${identity.rateSubject(projectId, clientKey(request.ip))}`);
      if (retryAfter > 0) {
        throw new DocwrightError('rate_limited', 'Too many beacons from this address; try again later.', {
          status: 429,
          headers: { 'Retry-After': String(retryAfter) },
        });
      }
      const { path, referrer } = beaconFields(request.body);
      const userAgent = request.headers['user-agent'];
      const accept = request.headers.accept;
      // A new visitor beyond the address's daily allowance is dropped with the same 204 as
      // a recorded beacon: the sender learns nothing it could tune an attack with.
      if (!(await cap.admit(projectId, request.ip, userAgent ?? ''))) return reply.status(204).send(null);
      const result = await analytics.ingest(projectId, [{ path, referrer, ip: request.ip, userAgent, accept, webBotAuth: ownSignature(request) }], {
        authorities: [dependencies.ownHost()],
      });
      const rejection = result.rejected[0];
      if (rejection !== undefined) throw badRequest(rejection.code, rejection.message);
      return reply.status(204).send(null);
    },
  );
}
