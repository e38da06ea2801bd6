import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import type { WebhookNetworkPolicy } from './webhook-network-policy.js';

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
export function sendWebhook(request: WebhookRequest, policy: WebhookNetworkPolicy, limits: WebhookLimits): Promise<WebhookResponse> {
  const url = new URL(request.url);
  const refusal = policy.refuseUrl(url);
  if (refusal !== null) return Promise.resolve(failure('address_refused', `The URL ${refusal}.`));
  const lookup: LookupFunction = (hostname, options, callback) => {
    dnsLookup(hostname, { all: true, family: options.family ?? 0 }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const refused = addresses.find((entry) => policy.refusesAddress(entry.address));
      if (refused !== undefined || addresses.length === 0) {
        return callback(new RefusedAddress(`${hostname} resolves to ${refused?.address ?? 'nothing'}, which webhooks may not reach.`), '', 0);
      }
      if (options.all) return callback(null, addresses);
      const first = addresses[0]!;
      return callback(null, first.address, first.family);
    });
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
      finish(
        error instanceof RefusedAddress
          ? failure('address_refused', error.message)
          : failure('connection_failed', `${error.code ?? 'error'}: ${error.message}`),
      );
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
