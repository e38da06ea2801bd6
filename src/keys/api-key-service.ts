import { timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../core/clock.js';
import { notFound, validationFailed } from '../core/errors.js';
import { newId } from '../core/ids.js';
import type { DatabaseSchema } from '../db/schema.js';
import { generateApiKey, hashApiKey, keyHint, parseApiKey, type KeyScope, KEY_SCOPES } from './api-key-format.js';
import { apiKeyInfoFromRow, type ApiKeyInfo, type CreatedApiKey, type KeyPrincipal } from './api-key.js';
import { PROCESS_LOCAL_COHERENCE, type KeyCacheCoherence } from './key-cache-coherence.js';

const LAST_USED_RESOLUTION_MS = 60_000;
/**
 * How long a verified key is trusted without asking the store again. Revocation takes
 * effect at once everywhere through the KeyCacheCoherence; this only bounds how long an
 * entry lives (and is the whole bound for a service built without one).
 */
export const KEY_CACHE_MS = 5_000;
const KEY_CACHE_SIZE = 10_000;

interface CachedKey {
  principal: KeyPrincipal;
  expiresAt: number | null;
  lastUsedAt: number | null;
  cachedAt: number;
  /** KeyCacheCoherence's version when the key was verified (or last re-checked). */
  stamp: number;
}

export class ApiKeyService {
  /** Per-process memory of the last lastUsedAt write, so a busy key costs no write per request. */
  private readonly lastUsedWrites = new Map<string, number>();
  /** Verified keys by hash: a poll loop costs no key lookup per request. */
  private readonly verified = new Map<string, CachedKey>();

  constructor(
    private readonly db: Kysely<DatabaseSchema>,
    private readonly clock: Clock,
    private readonly coherence: KeyCacheCoherence = PROCESS_LOCAL_COHERENCE,
  ) {}

  async create(input: { projectId: string; scope?: KeyScope; name?: string; expiresAt?: number | null }): Promise<CreatedApiKey> {
    const scope = input.scope ?? 'admin';
    if (!KEY_SCOPES.includes(scope)) throw validationFailed('The key is not valid.', [{ path: 'scope', message: 'must be admin or ingest' }]);
    const now = this.clock.now();
    if (input.expiresAt != null && input.expiresAt <= now) {
      throw validationFailed('The key is not valid.', [{ path: 'expiresAt', message: 'must be in the future' }]);
    }
    const project = await this.db.selectFrom('projects').select('id').where('id', '=', input.projectId).executeTakeFirst();
    if (!project) throw notFound(`No project with id "${input.projectId}".`);
    const key = generateApiKey(scope);
    const id = newId();
    await this.db
      .insertInto('api_keys')
      .values({
        id,
        project_id: input.projectId,
        scope,
        name: input.name ?? null,
        key_hash: hashApiKey(key),
        key_hint: keyHint(key),
        created_at: now,
        expires_at: input.expiresAt ?? null,
        last_used_at: null,
        revoked_at: null,
      })
      .execute();
    return { id, key, scope, projectId: input.projectId };
  }

  async list(projectId: string): Promise<ApiKeyInfo[]> {
    const rows = await this.db
      .selectFrom('api_keys')
      .selectAll()
      .where('project_id', '=', projectId)
      .orderBy('created_at', 'asc')
      .orderBy('id', 'asc')
      .execute();
    return rows.map(apiKeyInfoFromRow);
  }

  /** One key, or null. */
  async find(id: string): Promise<ApiKeyInfo | null> {
    const row = await this.db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
    return row ? apiKeyInfoFromRow(row) : null;
  }

  /**
   * Revoking twice is harmless and keeps the first revocation time. When this resolves,
   * every process refuses the key on its next request (see KeyCacheCoherence).
   */
  async revoke(id: string): Promise<ApiKeyInfo> {
    this.forget((principal) => principal.keyId === id);
    await this.db.updateTable('api_keys').set({ revoked_at: this.clock.now() }).where('id', '=', id).where('revoked_at', 'is', null).execute();
    const row = await this.db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) throw notFound(`No API key with id "${id}".`);
    await this.coherence.announce(`key:${id}`);
    return apiKeyInfoFromRow(row);
  }

  /** Revokes every key of a project at once, in every process (project deletion starts with it). */
  async revokeProject(projectId: string): Promise<void> {
    this.forget((principal) => principal.projectId === projectId);
    await this.db.updateTable('api_keys').set({ revoked_at: this.clock.now() }).where('project_id', '=', projectId).where('revoked_at', 'is', null).execute();
    await this.coherence.announce(`project:${projectId}`);
  }

  /** After a project's keys were deleted with it: no process may answer from its cache for them. */
  async projectDeleted(projectId: string): Promise<void> {
    this.forget((principal) => principal.projectId === projectId);
    await this.coherence.announce(`project:${projectId}`);
  }

  private forget(matches: (principal: KeyPrincipal) => boolean): void {
    for (const [hash, cached] of this.verified) if (matches(cached.principal)) this.verified.delete(hash);
  }

  /**
   * Without waiting: the principal of a key verified in the last few seconds, null for a
   * key that cannot be valid (malformed, bad checksum), undefined when the store must be asked.
   */
  authenticateFromCache(presented: string): KeyPrincipal | null | undefined {
    if (!parseApiKey(presented)) return null;
    return this.verifiedPrincipal(hashApiKey(presented), this.clock.now());
  }

  /**
   * The principal behind a presented key, or null. A malformed key or a bad checksum is
   * rejected before the database is asked; the stored hash is compared in constant time.
   */
  async authenticate(presented: string): Promise<KeyPrincipal | null> {
    const parsed = parseApiKey(presented);
    if (!parsed) return null;
    const hash = hashApiKey(presented);
    const now = this.clock.now();
    const known = this.verifiedPrincipal(hash, now);
    if (known !== undefined) return known;
    this.verified.delete(hash);
    // Before the read: a change committed while it runs then fails the entry's next check.
    const stamp = this.coherence.stamp();
    const row = await this.db
      .selectFrom('api_keys')
      .select(['id', 'project_id', 'scope', 'key_hash', 'expires_at', 'revoked_at', 'last_used_at'])
      .where('key_hash', '=', hash)
      .executeTakeFirst();
    if (!row) return null;
    if (!timingSafeEqual(Buffer.from(row.key_hash, 'hex'), Buffer.from(hash, 'hex'))) return null;
    if (row.revoked_at !== null || (row.expires_at !== null && row.expires_at <= now)) return null;
    if (row.scope !== parsed.scope) return null;
    this.touch(row.id, row.last_used_at, now);
    const principal: KeyPrincipal = { kind: 'key', keyId: row.id, projectId: row.project_id, scope: row.scope };
    if (this.verified.size >= KEY_CACHE_SIZE) this.verified.clear();
    this.verified.set(hash, { principal, expiresAt: row.expires_at, lastUsedAt: row.last_used_at, cachedAt: now, stamp });
    return principal;
  }

  /**
   * A key (by hash) verified less than KEY_CACHE_MS ago, not expired since, and unchanged
   * in the store as far as the coherence can tell; undefined otherwise.
   */
  private verifiedPrincipal(hash: string, now: number): KeyPrincipal | undefined {
    const cached = this.verified.get(hash);
    if (cached === undefined || now - cached.cachedAt >= KEY_CACHE_MS || (cached.expiresAt !== null && cached.expiresAt <= now)) return undefined;
    const stamp = this.coherence.check(cached.principal.keyId, cached.stamp, now);
    if (stamp === null) return undefined;
    cached.stamp = stamp;
    this.touch(cached.principal.keyId, cached.lastUsedAt, now);
    return cached.principal;
  }

  private touch(id: string, stored: number | null, now: number): void {
    const last = Math.max(stored ?? 0, this.lastUsedWrites.get(id) ?? 0);
    if (now - last < LAST_USED_RESOLUTION_MS) return;
    this.lastUsedWrites.set(id, now);
    if (this.lastUsedWrites.size > 10_000) this.lastUsedWrites.clear();
    // Not awaited: bookkeeping must not slow or fail the request. The condition keeps
    // several processes from writing more than once a minute between them.
    void this.db
      .updateTable('api_keys')
      .set({ last_used_at: now })
      .where('id', '=', id)
      .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<=', now - LAST_USED_RESOLUTION_MS)]))
      .execute()
      .catch(() => this.lastUsedWrites.delete(id));
  }
}
