import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../app/services.js';
import { packagePath } from '../core/runtime-paths.js';
import { ASSET_CACHE_CONTROL, PAGE_HEADERS, PULL_REQUEST_PAGE_HEADERS } from './dashboard-headers.js';
import { DASHBOARD_UNAVAILABLE_HTML, UNAVAILABLE_HEADERS } from './dashboard-unavailable-page.js';

/** web/dist of this checkout (from src/ or dist/ alike). */
export const DEFAULT_DASHBOARD_DIR = packagePath('web', 'dist');

/**
 * The paths the single-page app answers. Everything else (/v1, /v2, /docs, /openapi.json,
 * /healthz, /readyz, unknown paths) keeps the API's JSON problem bodies, so a typo in an
 * API URL never gets an HTML page back.
 */
export const DASHBOARD_PAGE_PATHS = ['/', '/setup', '/signin', '/users', '/account', '/projects', '/projects/*'] as const;

const PULL_REQUEST_PAGE = /^\/projects\/[^/]+\/pulls\/[^/]+\/?$/;

export interface DashboardOptions {
  /** The built dashboard (index.html and assets/); defaults to web/dist. */
  directory?: string;
}

/**
 * Serves the built dashboard: hashed assets with immutable caching, and index.html with a
 * strict CSP for every page path. index.html is read per request (it is small and pages
 * load rarely), so rebuilding the dashboard needs no restart; a missing build answers 503
 * with the command that fixes it.
 */
export function dashboardFeature(options: DashboardOptions = {}) {
  const directory = options.directory ?? DEFAULT_DASHBOARD_DIR;
  return async function registerDashboard(app: FastifyInstance, _services: Services): Promise<void> {
    await app.register(fastifyStatic, {
      root: join(directory, 'assets'),
      prefix: '/assets/',
      decorateReply: false,
      index: false,
      // The build writes .br and .gz copies of every asset (scripts/build-dashboard.mjs).
      preCompressed: true,
      // Our own header below; send's default would be max-age=0.
      cacheControl: false,
      etag: true,
      lastModified: false,
      setHeaders: (response) => {
        response.setHeader('Cache-Control', ASSET_CACHE_CONTROL);
        response.setHeader('X-Content-Type-Options', 'nosniff');
        // The same URL answers br, gzip or identity bytes: caches must key on the encoding.
        response.setHeader('Vary', 'Accept-Encoding');
      },
    });

    const servePage = async (request: FastifyRequest, reply: FastifyReply) => {
      let html: string;
      try {
        html = await readFile(join(directory, 'index.html'), 'utf8');
      } catch {
        request.log.warn('The dashboard is not built (web/dist/index.html is missing); run npm run build:dashboard');
        return reply.code(503).type('text/html; charset=utf-8').headers(UNAVAILABLE_HEADERS).send(DASHBOARD_UNAVAILABLE_HTML);
      }
      const path = request.url.split('?')[0] ?? '/';
      return reply
        .type('text/html; charset=utf-8')
        .headers(PULL_REQUEST_PAGE.test(path) ? PULL_REQUEST_PAGE_HEADERS : PAGE_HEADERS)
        .send(html);
    };
    for (const path of DASHBOARD_PAGE_PATHS) {
      app.get(path, { config: { access: 'public' }, schema: { hide: true } }, servePage);
    }
  };
}

/** The default registration, for src/server/features.ts. */
export const registerDashboard = dashboardFeature();
