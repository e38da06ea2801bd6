import { createHash, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A Web Bot Auth signer for tests: a fresh Ed25519 key, and the request headers it would
 * send. The signature base is written out here by hand from RFC 9421 §2.5, independently
 * of the verifier's own code, so a mistake on either side fails the tests.
 */
export class TestSigner {
  readonly privateKey: KeyObject;
  readonly jwk: { kty: 'OKP'; crv: 'Ed25519'; x: string };
  readonly keyId: string;

  constructor() {
    const pair = generateKeyPairSync('ed25519');
    this.privateKey = pair.privateKey;
    const exported = pair.publicKey.export({ format: 'jwk' }) as { x: string };
    this.jwk = { kty: 'OKP', crv: 'Ed25519', x: exported.x };
    this.keyId = createHash('sha256').update(`{"crv":"Ed25519","kty":"OKP","x":"${exported.x}"}`).digest('base64url');
  }

  /**
   * Signature headers for a request. `form` 'string' sends `Signature-Agent: "<url>"`;
   * 'dictionary' sends `Signature-Agent: sig1="<url>"` and covers its member.
   */
  headers(request: SignedRequest): {
    signature: string;
    signatureInput: string;
    signatureAgent: string | null;
    method: string;
    authority: string;
    path: string;
  } {
    const label = request.label ?? 'sig1';
    const form = request.form ?? 'string';
    const agentHeader = request.agentUrl === null ? null : form === 'string' ? `"${request.agentUrl}"` : `${label}="${request.agentUrl}"`;
    const components = request.components ?? ['@authority', ...(agentHeader === null ? [] : ['signature-agent'])];
    const identifiers = components.map((name) => (name === 'signature-agent' && form === 'dictionary' ? `"signature-agent";key="${label}"` : `"${name}"`));
    const created = request.created;
    const expires = request.expires ?? created + 60;
    const params = [
      `created=${created}`,
      `expires=${expires}`,
      `keyid="${request.keyId ?? this.keyId}"`,
      `alg="ed25519"`,
      ...(request.nonce === undefined ? [] : [`nonce="${request.nonce}"`]),
      `tag="${request.tag ?? 'web-bot-auth'}"`,
    ].join(';');
    const signatureParams = `(${identifiers.join(' ')});${params}`;
    const values: Record<string, string> = {
      '@authority': request.authority,
      '@method': request.method ?? 'GET',
      // RFC 9421 §2.2.6: the path without its query.
      '@path': (request.path ?? '/').split('?')[0]!,
      'signature-agent': form === 'string' ? (agentHeader ?? '') : `"${request.agentUrl}"`,
    };
    const base = [...components.map((name, index) => `${identifiers[index]}: ${values[name]}`), `"@signature-params": ${signatureParams}`].join('\n');
    const signature = sign(null, Buffer.from(base, 'utf8'), request.signWith ?? this.privateKey).toString('base64');
    return {
      signature: `${label}=:${signature}:`,
      signatureInput: `${label}=${signatureParams}`,
      signatureAgent: agentHeader,
      method: request.method ?? 'GET',
      authority: request.authority,
      path: request.path ?? '/',
    };
  }
}

export interface SignedRequest {
  agentUrl: string | null;
  authority: string;
  /** Seconds since the epoch. */
  created: number;
  expires?: number;
  nonce?: string;
  form?: 'string' | 'dictionary';
  label?: string;
  method?: string;
  path?: string;
  components?: string[];
  keyId?: string;
  tag?: string;
  signWith?: KeyObject;
}

export interface FakeKeyDirectory {
  port: number;
  /** Requests per path. */
  hits: Map<string, number>;
  /** What the directory answers; change it between requests. */
  reply: { status: number; body: string; headers: Record<string, string>; delayMs: number };
  close(): Promise<void>;
}

/** A key directory (or any JSON file server) on loopback. */
export async function startFakeKeyDirectory(signers: TestSigner[]): Promise<FakeKeyDirectory> {
  const hits = new Map<string, number>();
  const reply = {
    status: 200,
    body: JSON.stringify({ keys: signers.map((signer) => signer.jwk) }),
    headers: { 'content-type': 'application/http-message-signatures-directory+json', 'cache-control': 'max-age=3600' } as Record<string, string>,
    delayMs: 0,
  };
  const server: Server = createServer((request, response) => {
    hits.set(request.url ?? '', (hits.get(request.url ?? '') ?? 0) + 1);
    const send = (): void => {
      response.writeHead(reply.status, reply.headers);
      response.end(reply.body);
    };
    if (reply.delayMs > 0) setTimeout(send, reply.delayMs);
    else send();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    hits,
    reply,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
