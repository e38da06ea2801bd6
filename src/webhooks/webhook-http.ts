import type { LookupAddress } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { WebhookNetworkPolicy } from './webhook-network-policy.js';
import { certificateFailure } from './webhook-tls.js';

/** The response bytes read before the connection is dropped; only the first STORED_BODY_CHARS are kept. */
export const MAX_RESPONSE_BYTES = 64 * 1024;
export const STORED_BODY_CHARS = 1_024;

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

export interface WebhookLimits {
  connectTimeoutMs: number;
  /** Connect, send and the whole response: one deadline. */
  timeoutMs: number;
}

export interface WebhookResponse {
  ok: boolean;
  status: number | null;
  body: string | null;
  errorCode: string | null;
  errorMessage: string | null;
}

/** Every address a name resolves to (the system resolver, `dns.lookup`, by default). */
export type WebhookResolver = (hostname: string, family: number) => Promise<LookupAddress[]>;

/** How the sender reaches a receiver: passed in, so tests can resolve names their own way. */
export interface WebhookTransport {
  resolve?: WebhookResolver;
  /** The CAs to trust (webhook-tls.ts, webhookTrust); undefined = Node's default store. */
  ca?: readonly string[];
}

const systemResolver: WebhookResolver = (hostname, family) => dnsLookup(hostname, { all: true, family });

class RefusedAddress extends Error {
  readonly code = 'address_refused';
}

/**
 * The one way Docwright calls a webhook URL. The name is resolved here, every address it
 * resolves to is checked against the policy, and the socket is handed exactly those
 * checked addresses (the `lookup` the connection uses), so a DNS answer that changes
 * between the check and the connect (DNS rebinding) cannot send it elsewhere. No redirect
 * is followed (a 3xx is a failed attempt); the connect, the whole exchange and the
 * response's size are limited. TLS still verifies the certificate for the URL's name.
 */
export function sendWebhook(
  request: WebhookRequest,
  policy: WebhookNetworkPolicy,
  limits: WebhookLimits,
  transport: WebhookTransport = {},
): Promise<WebhookResponse> {
  const url = new URL(request.url);
  const refusal = policy.refuseUrl(url);
  if (refusal !== null) return Promise.resolve(failure('address_refused', `The URL ${refusal}.`));
  const resolve = transport.resolve ?? systemResolver;
  // The socket's only way to an address: what this resolution answered, after the check.
  const lookup: LookupFunction = (hostname, options, callback) => {
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : (options.family ?? 0);
    resolve(hostname, family).then(
      (addresses) => {
        const refused = addresses.find((entry) => policy.refusesAddress(entry.address));
        if (refused !== undefined || addresses.length === 0) {
          callback(new RefusedAddress(`${hostname} resolves to ${refused?.address ?? 'nothing'}, which webhooks may not reach.`), '', 0);
        } else if (options.all) callback(null, addresses);
        else callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (error: unknown) => callback(error instanceof Error ? error : new Error(String(error)), '', 0),
    );
  };
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (response: WebhookResponse) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      clearTimeout(connectDeadline);
      outgoing.destroy();
      resolve(response);
    };
    const outgoing = send(url, {
      method: 'POST',
      headers: { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) },
      lookup,
      agent: false,
      // Verified against the URL's name (Node sets the SNI name from it), not the pinned address.
      ...(transport.ca === undefined ? {} : { ca: [...transport.ca] }),
    });
    const deadline = setTimeout(() => finish(failure('timeout', `No complete answer within ${limits.timeoutMs / 1000} s.`)), limits.timeoutMs);
    const connectDeadline = setTimeout(
      () => finish(failure('connect_timeout', `No connection within ${limits.connectTimeoutMs / 1000} s.`)),
      limits.connectTimeoutMs,
    );
    outgoing.on('socket', (socket) => {
      socket.once(url.protocol === 'https:' ? 'secureConnect' : 'connect', () => clearTimeout(connectDeadline));
    });
    outgoing.on('error', (error: Error & { code?: string }) => {
      if (error instanceof RefusedAddress) return finish(failure('address_refused', error.message));
      const certificate = certificateFailure(error, url.hostname);
      if (certificate !== null) return finish(failure('certificate_invalid', certificate));
      finish(failure('connection_failed', `${error.code ?? 'error'}: ${error.message}`));
    });
    outgoing.on('response', (response) => readResponse(response, finish));
    outgoing.end(request.body);
  });
}

function readResponse(response: IncomingMessage, finish: (response: WebhookResponse) => void): void {
  const status = response.statusCode ?? 0;
  const chunks: Buffer[] = [];
  let size = 0;
  const done = () => {
    const body = Buffer.concat(chunks).toString('utf8').slice(0, STORED_BODY_CHARS);
    if (status >= 200 && status < 300) {
      finish({ ok: true, status, body, errorCode: null, errorMessage: null });
      return;
    }
    const redirect = status >= 300 && status < 400;
    finish({
      ok: false,
      status,
      body,
      errorCode: redirect ? 'redirect_not_followed' : 'http_status',
      errorMessage: redirect ? `Answered ${status}; redirects are not followed.` : `Answered ${status}.`,
    });
  };
  response.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size <= MAX_RESPONSE_BYTES) chunks.push(chunk);
    // The status is all that decides; a receiver that keeps talking is cut off.
    else done();
  });
  response.on('end', done);
  response.on('error', done);
}

function failure(code: string, message: string): WebhookResponse {
  return { ok: false, status: null, body: null, errorCode: code, errorMessage: message };
}
