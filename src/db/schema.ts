import type { Generated } from 'kysely';

/**
 * Table types for the Kysely query builder. Times are integer milliseconds since the
 * epoch in both dialects (bigint in PostgreSQL, parsed back to number), which keeps one
 * query code for both and makes time arithmetic in SQL trivial.
 */
export interface ProjectsTable {
  id: string;
  name: string;
  repository: string;
  ref: string;
  forge: string;
  settings: string;
  forge_credentials: string | null;
  created_at: number;
  updated_at: number;
}

export interface ApiKeysTable {
  id: string;
  project_id: string;
  scope: string;
  name: string | null;
  key_hash: string;
  key_hint: string;
  created_at: number;
  expires_at: number | null;
  last_used_at: number | null;
  revoked_at: number | null;
}

export interface MigrationsTable {
  version: number;
  name: string;
  applied_at: number;
}

export interface DatabaseSchema {
  projects: ProjectsTable;
  api_keys: ApiKeysTable;
  docwright_migrations: MigrationsTable;
}

export type { Generated };
