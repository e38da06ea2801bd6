import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';

type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

export interface BrowserRequest {
  method?: Method;
  url: string;
  payload?: unknown;
  headers?: Record<string, string>;
  /** false: send no X-CSRF-Token even when one is known. */
  csrf?: boolean;
  remoteAddress?: string;
}

/**
 * A browser against an app driven by inject(): keeps the cookies the server sets (as a
 * browser would, sending them back on every request) and the CSRF token the session
 * routes return.
 */
export class Browser {
  readonly cookies = new Map<string, string>();
  csrfToken: string | null = null;

  constructor(
    private readonly app: FastifyInstance,
    private readonly defaults: { headers?: Record<string, string>; remoteAddress?: string } = {},
  ) {}

  async request(options: BrowserRequest): Promise<LightMyRequestResponse> {
    const headers: Record<string, string> = { ...this.defaults.headers };
    if (this.cookies.size > 0) headers.cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    if (options.csrf !== false && this.csrfToken !== null) headers['x-csrf-token'] = this.csrfToken;
    const inject: InjectOptions = {
      method: options.method ?? 'GET',
      url: options.url,
      headers: { ...headers, ...options.headers },
      remoteAddress: options.remoteAddress ?? this.defaults.remoteAddress ?? '127.0.0.1',
    };
    if (options.payload !== undefined) inject.payload = options.payload as InjectOptions['payload'];
    const response = await this.app.inject(inject);
    for (const cookie of response.cookies as Array<{ name: string; value: string; maxAge?: number }>) {
      if (cookie.value === '' || cookie.maxAge === 0) this.cookies.delete(cookie.name);
      else this.cookies.set(cookie.name, cookie.value);
    }
    if ((response.headers['content-type'] ?? '').toString().includes('json')) {
      const body = response.json<{ csrfToken?: unknown }>();
      if (typeof body.csrfToken === 'string') this.csrfToken = body.csrfToken;
    }
    return response;
  }

  /** GET /v1/session: the CSRF token (and cookie) every later unsafe request needs. */
  async open(): Promise<LightMyRequestResponse> {
    return this.request({ url: '/v1/session' });
  }

  async signIn(email: string, password: string, remoteAddress?: string): Promise<LightMyRequestResponse> {
    if (this.csrfToken === null) await this.open();
    return this.request({ method: 'POST', url: '/v1/session', payload: { email, password }, ...(remoteAddress === undefined ? {} : { remoteAddress }) });
  }
}

export const ADMIN = { email: 'admin@example.com', password: 'correct horse battery' };
export const MEMBER = { email: 'member@example.com', password: 'member password 1' };

/** A signed-in browser for a user created directly in the store. */
export async function signedIn(
  app: FastifyInstance,
  services: { accounts: { createUser(input: { email: string; password: string; role: 'admin' | 'member' }): Promise<unknown> } },
  role: 'admin' | 'member',
): Promise<Browser> {
  const who = role === 'admin' ? ADMIN : MEMBER;
  await services.accounts.createUser({ ...who, role });
  const browser = new Browser(app);
  const response = await browser.signIn(who.email, who.password);
  if (response.statusCode !== 200) throw new Error(`sign-in failed: ${response.statusCode} ${response.body}`);
  return browser;
}
