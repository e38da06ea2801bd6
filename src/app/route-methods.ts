import type { FastifyInstance } from 'fastify';

/**
 * Which methods each registered path accepts, so a request with a method its path does not
 * take answers 405 with `Allow` (RFC 9110 §15.5.6) instead of 404. Fastify's router knows
 * this but does not say it; the routes are recorded as they are registered (onRoute), and
 * only requests that found no route ask.
 */
export class RouteMethods {
  private readonly paths = new Map<string, { pattern: RegExp; methods: Set<string> }>();

  /** Records every route registered after this call, the plugins' included. */
  watch(app: FastifyInstance): void {
    app.addHook('onRoute', (route) => {
      for (const method of Array.isArray(route.method) ? route.method : [route.method]) this.add(route.url, method);
    });
  }

  add(url: string, method: string): void {
    let entry = this.paths.get(url);
    if (!entry) {
      entry = { pattern: patternOf(url), methods: new Set() };
      this.paths.set(url, entry);
    }
    entry.methods.add(method.toUpperCase());
    // Fastify answers HEAD for every GET route (exposeHeadRoutes).
    if (method.toUpperCase() === 'GET') entry.methods.add('HEAD');
  }

  /** The methods some route takes at this path (the query string ignored); empty when no route matches it. */
  allowed(url: string): string[] {
    const path = url.split('?')[0] ?? '';
    const methods = new Set<string>();
    for (const { pattern, methods: accepted } of this.paths.values()) {
      if (pattern.test(path)) for (const method of accepted) methods.add(method);
    }
    return [...methods].sort();
  }
}

/** A route URL (`/v2/agent/:projectId/job`, `/docs/*`) as a regular expression over request paths. */
function patternOf(url: string): RegExp {
  const segments = url.split('/').map((segment) => {
    if (segment === '*') return '.*';
    // `:name`, `:name(regex)` and several parameters in one segment: one segment of anything.
    if (segment.includes(':')) return '[^/]+';
    return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  });
  // ignoreTrailingSlash: `/a/` is `/a`.
  return new RegExp(`^${segments.join('/').replace(/\/$/, '')}/?$`);
}
