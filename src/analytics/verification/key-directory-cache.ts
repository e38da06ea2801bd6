import type { KeyObject } from 'node:crypto';
import type { Clock } from '../../core/clock.js';
import { DEFAULT_FETCH_BUDGET, DirectoryFetchQueue, type FetchBudget } from './directory-fetch-queue.js';
import { DirectoryOwners } from './directory-owners.js';
import { importEd25519, isEd25519Jwk, jwkThumbprint } from './ed25519-jwk.js';
import { freshnessSeconds, guardedFetch, type AddressResolver } from './guarded-fetch.js';
import type { DirectoryState, KeyLookup } from './web-bot-auth.js';

export const DIRECTORY_PATH = '/.well-known/http-message-signatures-directory';
export const DIRECTORY_MEDIA_TYPE = 'application/http-message-signatures-directory+json';

export interface KeyDirectoryOptions {
  clock: Clock;
  /** Body limit per directory. Default 64 KiB. */
  maxBytes?: number;
  /** Per-fetch deadline. Default 5 s. */
  timeoutMs?: number;
  /** Bounds on how long a fetched directory is reused, whatever its caching headers say. Default 5 min to 24 h. */
  minTtlMs?: number;
  maxTtlMs?: number;
  /** How long a failed fetch is remembered before trying again. Default 5 min. */
  failureTtlMs?: number;
  /** Directories remembered; the least recently fetched goes first. Default 1,000. */
  maxDirectories?: number;
  /** Directories one project holds (directory-owners.ts). Default 100. */
  maxDirectoriesPerProject?: number;
  /** Fetches running and waiting, in all and per project (directory-fetch-queue.ts); beyond them a request is dropped and asked again by a later hit. */
  budget?: Partial<FetchBudget>;
  allowLoopback?: boolean;
  resolve?: AddressResolver;
  onChange?: () => void;
  onError?: (agentUrl: string, error: unknown) => void;
}

interface Entry {
  state: 'ready' | 'failed';
  keys: Map<string, KeyObject>;
  jwks: Array<{ keyId: string; x: string }>;
  /** Fresh until then; a stale directory is still used while it is fetched again. */
  freshUntil: number;
}

/** The published shape of a directory entry, as posted to ingest workers. */
export interface DirectorySnapshot {
  agentUrl: string;
  state: 'ready' | 'failed';
  keys: Array<{ keyId: string; x: string }>;
  /** Fresh until then (ms since the epoch); absent = always fresh. */
  freshUntil?: number;
}

const MAX_KEYS = 64;

/**
 * Key directories of Web Bot Auth signers, fetched in the background: `directory()`
 * answers from memory only, `request()` schedules a fetch. A stale directory keeps
 * serving while it is fetched again, as HTTP caching's stale-while-revalidate would.
 */
export class KeyDirectoryCache implements KeyLookup {
  private readonly entries = new Map<string, Entry>();
  private readonly fetches: DirectoryFetchQueue;
  private readonly owners: DirectoryOwners;

  constructor(private readonly options: KeyDirectoryOptions) {
    this.fetches = new DirectoryFetchQueue({ ...DEFAULT_FETCH_BUDGET, ...options.budget }, (agentUrl, project) => this.fetch(agentUrl, project));
    this.owners = new DirectoryOwners(options.maxDirectoriesPerProject ?? 100);
  }

  directory(agentUrl: string): DirectoryState {
    const entry = this.entries.get(agentUrl);
    if (entry === undefined) return { state: 'unknown' };
    const fresh = entry.freshUntil > this.options.clock.now();
    // Fetched again for a project that holds it (a verifier's want names the hit's own project).
    if (!fresh) this.request(agentUrl, this.owners.owners(agentUrl).values().next().value ?? null);
    if (entry.state === 'failed') return { state: 'failed' };
    return { state: 'ready', fresh, key: (keyId) => entry.keys.get(keyId) ?? null };
  }

  /**
   * Schedules a fetch of the agent's directory, on `projectId`'s budget (null: requests
   * no project made, which share one), unless one is fresh or already on its way.
   */
  request(agentUrl: string, projectId: string | null = null): void {
    const project = projectId ?? '';
    const entry = this.entries.get(agentUrl);
    if (entry !== undefined && this.forget(this.owners.claim(agentUrl, project))) this.options.onChange?.();
    if (entry !== undefined && entry.freshUntil > this.options.clock.now()) return;
    this.fetches.offer(agentUrl, project);
  }

  /** Resolves once no fetch is running or queued; for tests and the CLI. */
  async settled(): Promise<void> {
    while (!this.fetches.idle) await new Promise((resolve) => setTimeout(resolve, 5));
  }

  snapshot(): DirectorySnapshot[] {
    return [...this.entries].map(([agentUrl, entry]) => ({ agentUrl, state: entry.state, keys: entry.jwks, freshUntil: entry.freshUntil }));
  }

  /** Drops directories no project holds any more; true when there were some. */
  private forget(agentUrls: readonly string[]): boolean {
    for (const agentUrl of agentUrls) this.entries.delete(agentUrl);
    return agentUrls.length > 0;
  }

  private async fetch(agentUrl: string, project: string): Promise<void> {
    const now = (): number => this.options.clock.now();
    let entry: Entry;
    try {
      const response = await guardedFetch(new URL(DIRECTORY_PATH, agentUrl).href, {
        maxBytes: this.options.maxBytes ?? 65_536,
        timeoutMs: this.options.timeoutMs ?? 5_000,
        allowLoopback: this.options.allowLoopback === true,
        accept: `${DIRECTORY_MEDIA_TYPE}, application/json;q=0.5`,
        ...(this.options.resolve === undefined ? {} : { resolve: this.options.resolve }),
      });
      if (response.status !== 200) throw new Error(`${agentUrl} answered ${response.status}`);
      const jwks = readDirectory(response.body);
      const ttlSeconds = freshnessSeconds(response.headers, now());
      const ttl = Math.min(this.options.maxTtlMs ?? 86_400_000, Math.max(this.options.minTtlMs ?? 300_000, (ttlSeconds ?? 3_600) * 1000));
      entry = {
        state: 'ready',
        keys: new Map(jwks.map((jwk) => [jwk.keyId, importEd25519({ kty: 'OKP', crv: 'Ed25519', x: jwk.x })])),
        jwks,
        freshUntil: now() + ttl,
      };
    } catch (error) {
      this.options.onError?.(agentUrl, error);
      const previous = this.entries.get(agentUrl);
      // A directory that answered before keeps its keys through a passing outage.
      entry =
        previous?.state === 'ready'
          ? { ...previous, freshUntil: now() + (this.options.failureTtlMs ?? 300_000) }
          : { state: 'failed', keys: new Map(), jwks: [], freshUntil: now() + (this.options.failureTtlMs ?? 300_000) };
    }
    this.entries.delete(agentUrl);
    this.entries.set(agentUrl, entry);
    this.forget(this.owners.claim(agentUrl, project));
    while (this.entries.size > (this.options.maxDirectories ?? 1_000)) {
      const oldest = this.entries.keys().next().value!;
      this.entries.delete(oldest);
      this.owners.drop(oldest);
    }
    this.options.onChange?.();
  }
}

/** The Ed25519 keys of a JWKS directory, filed under their computed thumbprints. */
export function readDirectory(body: string): Array<{ keyId: string; x: string }> {
  const parsed = JSON.parse(body) as unknown;
  const keys = typeof parsed === 'object' && parsed !== null ? (parsed as { keys?: unknown }).keys : undefined;
  if (!Array.isArray(keys)) throw new Error('the directory has no "keys" array');
  return keys
    .filter(isEd25519Jwk)
    .slice(0, MAX_KEYS)
    .map((jwk) => ({ keyId: jwkThumbprint(jwk), x: jwk.x }));
}

/** A read-only lookup over published directory snapshots; what an ingest worker holds. */
export function snapshotKeyLookup(directories: readonly DirectorySnapshot[], now: () => number = () => 0): KeyLookup {
  const byAgent = new Map<string, DirectoryState>();
  for (const directory of directories) {
    if (directory.state === 'failed') {
      byAgent.set(directory.agentUrl, { state: 'failed' });
      continue;
    }
    const keys = new Map(directory.keys.map((key) => [key.keyId, importEd25519({ kty: 'OKP', crv: 'Ed25519', x: key.x })]));
    const freshUntil = directory.freshUntil ?? Infinity;
    byAgent.set(directory.agentUrl, {
      state: 'ready',
      get fresh() {
        return freshUntil > now();
      },
      key: (keyId) => keys.get(keyId) ?? null,
    });
  }
  return { directory: (agentUrl) => byAgent.get(agentUrl) ?? { state: 'unknown' } };
}
