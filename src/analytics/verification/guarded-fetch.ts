import { lookup as dnsLookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { DocwrightError } from '../../core/errors.js';
import { isLoopbackAddress, isPublicAddress } from './address-guard.js';

export type AddressResolver = (host: string) => Promise<Array<{ address: string; family: number }>>;

export const systemResolver: AddressResolver = (host) => dnsLookup(host, { all: true, verbatim: true });

export interface GuardedFetchOptions {
  /** Largest body read, in bytes; a longer one fails the fetch. */
  maxBytes: number;
  /** Whole-fetch deadline (resolve, connect, headers and body), in milliseconds. */
  timeoutMs: number;
  /** Tests: allow loopback addresses, and plain http to them. Never in production. */
  allowLoopback?: boolean;
  /** A URL the operator configured (a mirror), not one a request named: any address and plain http are allowed. */
  trusted?: boolean;
  resolve?: AddressResolver;
  accept?: string;
}

export interface GuardedResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export class OutboundFetchError extends DocwrightError {
  constructor(message: string) {
    super('outbound_fetch_failed', message, { status: 502 });
  }
}

/**
 * GET over https to a public address, with a size and time limit and no redirects (a
 * redirect could lead anywhere; the caller's URL is the only one fetched). Used for key
 * directories and the operators' range lists.
 */
export async function guardedFetch(target: string, options: GuardedFetchOptions): Promise<GuardedResponse> {
  const url = new URL(target);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const trusted = options.trusted === true;
  const loopbackAllowed = options.allowLoopback === true;
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && (loopbackAllowed || trusted))) throw new OutboundFetchError(`${url.origin} is not https`);
  const addresses = await withDeadline((options.resolve ?? systemResolver)(host), options.timeoutMs, `resolving ${host}`);
  const allowed = trusted ? addresses : addresses.filter((entry) => isPublicAddress(entry.address, loopbackAllowed));
  if (allowed.length === 0 || allowed.length !== addresses.length) {
    throw new OutboundFetchError(`${host} resolves to a private, loopback or link-local address`);
  }
  const chosen = allowed[0]!;
  // Plain http only to loopback under the test setting, or to a trusted mirror.
  if (url.protocol !== 'https:' && !trusted && !isLoopbackAddress(chosen.address)) throw new OutboundFetchError(`${url.origin} is not https`);
  // Connect to the address just checked, never to a second DNS answer.
  const pinned: LookupFunction = (_hostname, lookupOptions, callback) => {
    if (lookupOptions.all === true) callback(null, [{ address: chosen.address, family: chosen.family }]);
    else callback(null, chosen.address, chosen.family);
  };
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<GuardedResponse>((resolve, reject) => {
    const request = send(
      url,
      { method: 'GET', lookup: pinned, headers: { accept: options.accept ?? 'application/json', 'user-agent': 'docwright' } },
      (response) => {
        const status = response.statusCode ?? 0;
        const declared = Number(response.headers['content-length'] ?? '0');
        if (declared > options.maxBytes) {
          response.destroy();
          reject(new OutboundFetchError(`${url.origin} sent ${declared} bytes, more than ${options.maxBytes}`));
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > options.maxBytes) {
            response.destroy();
            reject(new OutboundFetchError(`${url.origin} sent more than ${options.maxBytes} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        response.on('end', () => resolve({ status, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') }));
        response.on('error', reject);
      },
    );
    const timer = setTimeout(() => request.destroy(new OutboundFetchError(`${url.origin} did not answer within ${options.timeoutMs} ms`)), options.timeoutMs);
    request.on('close', () => clearTimeout(timer));
    request.on('error', reject);
    request.end();
  });
}

async function withDeadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new OutboundFetchError(`timed out ${what}`)), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Seconds a response may be reused, from Cache-Control (max-age; no-store, no-cache = 0) or Expires; null when it says nothing. */
export function freshnessSeconds(headers: IncomingHttpHeaders, nowMs: number): number | null {
  const control = headers['cache-control'];
  if (control !== undefined) {
    const directives = control
      .toLowerCase()
      .split(',')
      .map((part) => part.trim());
    if (directives.some((part) => part === 'no-store' || part === 'no-cache')) return 0;
    const maxAge = directives.find((part) => part.startsWith('max-age='));
    if (maxAge !== undefined) {
      const seconds = Number(maxAge.slice('max-age='.length));
      if (Number.isFinite(seconds) && seconds >= 0) return Math.floor(seconds);
    }
  }
  const expires = headers.expires;
  if (expires !== undefined) {
    const at = Date.parse(expires);
    if (!Number.isNaN(at)) return Math.max(0, Math.floor((at - nowMs) / 1000));
  }
  return null;
}
