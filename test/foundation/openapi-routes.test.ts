import type { FastifyInstance, RouteOptions } from 'fastify';
import type { OpenAPIV3_1 } from 'openapi-types';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { buildApp } from '../../src/app/build-app.js';
import { createLogger } from '../../src/app/logger.js';
import { features } from '../../src/server/features.js';
import { createTestApp, type TestApp } from '../helpers/test-app.js';

// Every route registered, present and future, must give a generated client what it needs.
// A failure names the route and says exactly what to add to it.

interface Registered {
  method: string;
  url: string;
  access: string;
  hidden: boolean;
}

let t: TestApp;
let app: FastifyInstance;
const registered: Registered[] = [];
let document: OpenAPIV3_1.Document;

beforeAll(async () => {
  t = await createTestApp('sqlite');
  // Listens from before the first feature, so it sees every feature's routes.
  const collect = (instance: FastifyInstance): void => {
    instance.addHook('onRoute', (route: RouteOptions) => {
      for (const method of [route.method].flat()) {
        if (method === 'HEAD') continue;
        registered.push({
          method,
          url: route.url,
          access: route.config?.access ?? 'public',
          hidden: route.schema?.hide === true,
        });
      }
    });
  };
  app = await buildApp({ services: t.services, logger: createLogger({ level: 'silent' }), features: [collect, ...features] });
  document = (await app.inject({ url: '/openapi.json' })).json();
});
afterAll(async () => {
  await app.close();
  await t.close();
});

const openApiPath = (url: string): string => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\/$/, '');
const suggestedId = (method: string, path: string): string =>
  method.toLowerCase() +
  path
    .split('/')
    .filter((segment) => segment !== '' && !segment.startsWith('{') && !/^v\d+$/.test(segment))
    .map((segment) => segment.replace(/(^|[-_])(\w)/g, (_match, _separator: string, letter: string) => letter.toUpperCase()))
    .join('');

function problemsOf(route: Registered): string[] {
  const path = openApiPath(route.url);
  const where = `${route.method} ${route.url}`;
  const operation = (document.paths?.[path] as Record<string, OpenAPIV3_1.OperationObject | undefined> | undefined)?.[route.method.toLowerCase()];
  if (!operation) return [`${where}: missing from /openapi.json; give it a schema (or schema.hide: true if it is not part of the API)`];
  const problems: string[] = [];
  const responses = operation.responses ?? {};
  const statuses = Object.keys(responses);
  if (!operation.operationId) problems.push(`${where}: add \`operationId: '${suggestedId(route.method, path)}'\` to the route's schema (unique, camelCase)`);
  if (!operation.summary || !operation.tags?.length) problems.push(`${where}: add \`summary\` and \`tags\` to the route's schema`);
  if (!statuses.some((status) => status.startsWith('2'))) problems.push(`${where}: add its success answer to schema.response (e.g. \`200: theSchema\`)`);
  if (route.access === 'public') {
    if (operation.security?.length !== 0) problems.push(`${where}: public route: remove its schema.security (the document then says \`security: []\`)`);
  } else {
    if (!operation.security?.length)
      problems.push(
        `${where}: add \`security: keyOrSessionSecurity\` (key or session, src/app/project-route-schemas.ts) or \`security: [{ cookieAuth: [] }]\` (session only) to the route's schema`,
      );
    for (const status of ['401', '403'])
      if (!statuses.includes(status))
        problems.push(
          `${where}: add \`${status}: problemSchema.describe('…')\` to schema.response (project routes: spread \`...authProblems\` from src/app/project-route-schemas.ts)`,
        );
    if (path.includes('{projectId}') && !statuses.includes('404'))
      problems.push(`${where}: add \`404: problemSchema.describe('Unknown project …')\` to schema.response (or spread \`...authProblems\`)`);
  }
  for (const [status, response] of Object.entries(responses) as Array<[string, OpenAPIV3_1.ResponseObject]>) {
    const types = Object.keys(response.content ?? {});
    if (
      Number(status) >= 400 &&
      (types.join() !== 'application/problem+json' ||
        (response.content?.['application/problem+json']?.schema as { $ref?: string } | undefined)?.$ref !== '#/components/schemas/Problem')
    )
      problems.push(`${where}: answer ${status} must use \`problemSchema\` (src/app/problem.ts); it documents ${types.join(', ') || 'no body'}`);
    if (status === '201' && response.headers?.Location === undefined)
      problems.push(`${where}: send Location on 201 and add \`openapi: { responseHeaders: { 201: ['Location!'] } }\` to the route's config`);
    const schema = response.content?.['application/json']?.schema;
    if (status.startsWith('2') && (schema as { type?: unknown } | undefined)?.type === 'string')
      problems.push(`${where}: a ${status} string documented as JSON; an event stream? add \`openapi: { eventStream: ${status} }\` to the route's config`);
    if ((status === '429' || status === '503') && response.headers?.['Retry-After'] === undefined) problems.push(`${where}: ${status} without Retry-After`);
  }
  return problems;
}

test('every route has an operationId, its security, its problem responses and its headers in /openapi.json', () => {
  const routes = registered.filter((route) => !route.hidden);
  expect(routes.length).toBeGreaterThan(30);
  expect(routes.flatMap(problemsOf)).toEqual([]);
});

test('operationIds are unique, and every operation of the document passes the same rules', () => {
  const ids: string[] = [];
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(item ?? {}) as Array<[string, OpenAPIV3_1.OperationObject]>) {
      ids.push(operation.operationId ?? '');
      const known = registered.find((route) => route.method === method.toUpperCase() && openApiPath(route.url) === path);
      // The core routes (health) are registered before the features, and are public.
      expect(problemsOf(known ?? { method: method.toUpperCase(), url: path, access: 'public', hidden: false })).toEqual([]);
    }
  }
  expect(ids.filter((id, index) => ids.indexOf(id) !== index)).toEqual([]);
});

test('the rules catch what they are for', () => {
  const saved = structuredClone(document);
  const create = document.paths?.['/v2/agent/{projectId}/job']?.post as OpenAPIV3_1.OperationObject;
  delete create.operationId;
  delete (create.responses?.['201'] as OpenAPIV3_1.ResponseObject).headers?.Location;
  delete create.responses?.['401'];
  const route = { method: 'POST', url: '/v2/agent/:projectId/job', access: 'admin', hidden: false };
  expect(problemsOf(route)).toEqual([
    "POST /v2/agent/:projectId/job: add `operationId: 'postAgentJob'` to the route's schema (unique, camelCase)",
    "POST /v2/agent/:projectId/job: add `401: problemSchema.describe('…')` to schema.response (project routes: spread `...authProblems` from src/app/project-route-schemas.ts)",
    "POST /v2/agent/:projectId/job: send Location on 201 and add `openapi: { responseHeaders: { 201: ['Location!'] } }` to the route's config",
  ]);
  expect(problemsOf({ ...route, url: '/v2/agent/:projectId/job/:id/undocumented' })).toEqual([
    'POST /v2/agent/:projectId/job/:id/undocumented: missing from /openapi.json; give it a schema (or schema.hide: true if it is not part of the API)',
  ]);
  document = saved;
});
