import { createHash, createPrivateKey, sign, type KeyObject } from 'node:crypto';
import type { Clock } from '../../core/clock.js';
import { DocwrightError, isDocwrightError } from '../../core/errors.js';
import type { ForgeAppCredentials } from './forge.js';
import { forgeNotConfigured } from './forge-errors.js';
import { callGitHub, createOctokit } from './github-request.js';

/**
 * GitHub App installation tokens: a JWT signed with the App's private key is exchanged for
 * an installation token that lives an hour. Tokens are cached and renewed a few minutes
 * before they expire, so a job never starts a push with a token about to lapse.
 */
export interface GitHubAppTokenOptions {
  apiBaseUrl: string;
  clock: Clock;
  requestTimeoutMs: number;
  userAgent: string;
}

const RENEW_BEFORE_EXPIRY_MS = 5 * 60_000;
/** GitHub refuses App JWTs that live longer than 10 minutes; back-dating absorbs clock skew. */
const JWT_BACKDATE_SECONDS = 60;
const JWT_LIFETIME_SECONDS = 9 * 60;

interface CachedToken {
  token: string;
  expiresAt: number;
}

export class GitHubAppTokens {
  private readonly cache = new Map<string, CachedToken>();
  private readonly pending = new Map<string, Promise<CachedToken>>();

  constructor(private readonly options: GitHubAppTokenOptions) {}

  async token(credentials: ForgeAppCredentials): Promise<string> {
    const key = cacheKey(credentials);
    const cached = this.cache.get(key);
    if (cached && cached.expiresAt - this.options.clock.now() > RENEW_BEFORE_EXPIRY_MS) return cached.token;
    // Concurrent jobs of one installation share a single exchange.
    let exchange = this.pending.get(key);
    if (!exchange) {
      exchange = this.exchange(credentials).finally(() => this.pending.delete(key));
      this.pending.set(key, exchange);
    }
    const fresh = await exchange;
    this.cache.set(key, fresh);
    return fresh.token;
  }

  /** Forget a token GitHub no longer accepts (revoked, or the installation changed). */
  invalidate(credentials: ForgeAppCredentials): void {
    this.cache.delete(cacheKey(credentials));
  }

  private async exchange(credentials: ForgeAppCredentials): Promise<CachedToken> {
    if (!/^\d+$/.test(credentials.installationId)) {
      throw forgeNotConfigured(`The GitHub App installation id must be numeric, got ${JSON.stringify(credentials.installationId)}.`);
    }
    const jwt = signAppJwt(credentials.appId, credentials.privateKey, this.options.clock.now());
    const octokit = createOctokit({ auth: jwt, baseUrl: this.options.apiBaseUrl, userAgent: this.options.userAgent });
    const action = `exchanging a GitHub App JWT for an installation token (app ${credentials.appId}, installation ${credentials.installationId})`;
    const response = await callGitHub(
      action,
      [jwt],
      (signal) =>
        octokit.rest.apps.createInstallationAccessToken({
          installation_id: Number(credentials.installationId),
          request: { signal },
        }),
      this.options.requestTimeoutMs,
    ).catch((error: unknown) => {
      // Here a 404 means the installation, not a repository, is missing.
      if (isDocwrightError(error) && error.code === 'forge_repository_not_found') {
        throw new DocwrightError(
          'forge_auth_failed',
          `GitHub App ${credentials.appId} has no installation ${credentials.installationId}: install the App on the repository's owner and use that installation id.`,
          { status: 502, cause: error },
        );
      }
      throw error;
    });
    const expiresAt = Date.parse(response.data.expires_at);
    return {
      token: response.data.token,
      expiresAt: Number.isFinite(expiresAt) ? expiresAt : this.options.clock.now() + 55 * 60_000,
    };
  }
}

export function signAppJwt(appId: string, privateKey: string, nowMs: number): string {
  if (!/^\d+$/.test(appId)) throw forgeNotConfigured(`The GitHub App id must be numeric, got ${JSON.stringify(appId)}.`);
  const key = readPrivateKey(privateKey);
  const now = Math.floor(nowMs / 1000);
  const header = base64Url(JSON.stringify({ alg: 'RS256', typ: 'JWT' }));
  const payload = base64Url(JSON.stringify({ iat: now - JWT_BACKDATE_SECONDS, exp: now + JWT_LIFETIME_SECONDS, iss: appId }));
  const signature = sign('RSA-SHA256', Buffer.from(`${header}.${payload}`), key).toString('base64url');
  return `${header}.${payload}.${signature}`;
}

function readPrivateKey(pem: string): KeyObject {
  try {
    const key = createPrivateKey({ key: pem, format: 'pem' });
    if (key.asymmetricKeyType !== 'rsa') throw new Error('not an RSA key');
    return key;
  } catch {
    // The key's text must never reach a message; say only what is wrong with it.
    throw forgeNotConfigured('The GitHub App private key is not a PEM-encoded RSA private key.');
  }
}

function base64Url(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64url');
}

/** Keyed by the private key too, so a rotated key never reuses a token minted with the old one. */
function cacheKey(credentials: ForgeAppCredentials): string {
  const keyDigest = createHash('sha256').update(credentials.privateKey).digest('hex');
  return `${credentials.appId}/${credentials.installationId}/${keyDigest}`;
}
