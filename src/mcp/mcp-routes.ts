import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { unauthorized } from '../core/errors.js';
import { buildProblem, PROBLEM_CONTENT_TYPE, problemSchema } from '../app/problem.js';
import type { Services } from '../app/services.js';
import { problemError, type DocwrightApi } from './mcp-api.js';
import { MCP_SERVER_VERSION } from './mcp-version.js';

/**
 * The API of this very process, called in-process (no socket) with the MCP caller's own
 * key: every rule of the HTTP API (project scope, validation, rate limit, job state) holds
 * for MCP exactly as for any client, through the one code path that enforces it.
 */
function injectedApi(app: FastifyInstance, authorization: string, requestId: string): DocwrightApi {
  return async (call) => {
    const query: Record<string, string> = {};
    for (const [name, value] of Object.entries(call.query ?? {})) if (value !== undefined) query[name] = String(value);
    const response = await app.inject({
      method: call.method,
      url: call.path,
      query,
      headers: {
        authorization,
        'x-request-id': requestId,
        accept: 'application/json',
        ...(call.body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(call.body === undefined ? {} : { payload: JSON.stringify(call.body) }),
    });
    let body: unknown;
    try {
      body = response.body === '' ? undefined : JSON.parse(response.body);
    } catch {
      body = undefined;
    }
    if (response.statusCode >= 400) throw problemError(response.statusCode, body);
    return body;
  };
}

// The SDK takes most of a second to load: a server that never sees an MCP request never loads it.
const loadMcp = async () => {
  const [{ StreamableHTTPServerTransport }, { createMcpServer }] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    import('./mcp-server.js'),
  ]);
  return { StreamableHTTPServerTransport, createMcpServer };
};
let mcpModules: ReturnType<typeof loadMcp> | undefined;

const mcpSecurity = [{ bearerAuth: [] }];

/**
 * MCP over Streamable HTTP at /mcp (docs/mcp.md): stateless, one server and transport per
 * request, JSON answers (no SSE stream). An admin key of a project opens it; a dashboard
 * session does not (an MCP client holds a key, never a browser cookie).
 */
export function registerMcpRoutes(app: FastifyInstance, _services: Services): void {
  const handle = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const principal = request.principal;
    const authorization = request.headers.authorization;
    if (principal?.kind !== 'key' || authorization === undefined) throw unauthorized();
    const { StreamableHTTPServerTransport, createMcpServer } = await (mcpModules ??= loadMcp());
    const server = createMcpServer({ api: injectedApi(app, authorization, request.id), projectId: principal.projectId, version: MCP_SERVER_VERSION });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    reply.hijack();
    reply.raw.setHeader('X-Request-Id', request.id);
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(request.raw, reply.raw, request.body);
    } catch (error) {
      // Past hijack() Fastify's error handler no longer answers: a bare 500, as it would write.
      request.log.error({ err: error }, 'MCP request failed');
      if (!reply.raw.headersSent) {
        const problem = buildProblem({ status: 500, code: 'internal_error', detail: 'The MCP request failed.', requestId: request.id });
        reply.raw.writeHead(500, { 'content-type': PROBLEM_CONTENT_TYPE });
        reply.raw.end(JSON.stringify(problem));
      } else reply.raw.end();
    }
  };
  app.post(
    '/mcp',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['mcp'],
        operationId: 'mcp',
        summary: 'Model Context Protocol (Streamable HTTP)',
        description:
          "MCP over Streamable HTTP, stateless: each POST carries JSON-RPC 2.0 messages (initialize, tools/list, tools/call …) and is answered with JSON-RPC as application/json (202 with no body for notifications). Send Accept: application/json, text/event-stream. Tools act on the admin key's own project: create_job, get_job, send_message, cancel_job, list_jobs, get_visitors, get_agent_traffic (docs/mcp.md). An admin key only; a dashboard session is refused.",
        security: mcpSecurity,
        body: z.unknown().describe('A JSON-RPC 2.0 message or batch (MCP).'),
        response: {
          200: z.unknown().describe('The JSON-RPC response (application/json).'),
          202: z.null().describe('Accepted: the request held only notifications or responses.'),
          401: problemSchema.describe('Missing, malformed, unknown, revoked or expired key (a dashboard session is not accepted).'),
          403: problemSchema.describe('The key has the ingest scope.'),
        },
      },
    },
    handle,
  );
  // GET (the SDK's client probes it for a server-initiated stream and accepts 405) and
  // DELETE (ending a session, which a stateless endpoint does not have) are not routes: the
  // app answers them 405 with `Allow: POST` (src/app/route-methods.ts).
}
