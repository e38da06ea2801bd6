import type { ApiKeysTable } from '../db/schema.js';
import type { UserRole } from '../accounts/user.js';
import type { KeyScope } from './api-key-format.js';

/** What listings show of a key; never the key itself. */
export interface ApiKeyInfo {
  id: string;
  projectId: string;
  scope: KeyScope;
  name: string | null;
  hint: string;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

/** The outcome of creating a key: the only time the full key exists outside its holder. */
export interface CreatedApiKey {
  id: string;
  key: string;
  scope: KeyScope;
  projectId: string;
}

/** A request authenticated by an API key: it opens its own project only. */
export interface KeyPrincipal {
  kind: 'key';
  keyId: string;
  projectId: string;
  scope: KeyScope;
}

/** A request of a signed-in dashboard user (session cookie): any project, by role. */
export interface UserPrincipal {
  kind: 'user';
  userId: string;
  role: UserRole;
  /** The session's row id (the SHA-256 of the cookie's secret, not the secret). */
  sessionId: string;
}

/** Who a request is, once its key or session checked out. */
export type Principal = KeyPrincipal | UserPrincipal;

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export function apiKeyInfoFromRow(row: ApiKeysTable): ApiKeyInfo {
  return {
    id: row.id,
    projectId: row.project_id,
    scope: row.scope as KeyScope,
    name: row.name,
    hint: row.key_hint,
    createdAt: new Date(row.created_at).toISOString(),
    expiresAt: iso(row.expires_at),
    lastUsedAt: iso(row.last_used_at),
    revokedAt: iso(row.revoked_at),
  };
}
