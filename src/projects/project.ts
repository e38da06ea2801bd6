import type { ProjectsTable } from '../db/schema.js';

export type ForgeKind = 'local' | 'github' | 'gitlab';
export const FORGE_KINDS: readonly ForgeKind[] = ['local', 'github', 'gitlab'];

export interface ProjectSettings {
  /** Default model for this project's jobs, `provider:model`. */
  model?: string;
  /** Create + message budget per sliding hour. */
  rateLimitPerHour?: number;
  /** Tokens (input + output) the project's jobs may use per UTC month; unset = DOCWRIGHT_MONTHLY_TOKEN_BUDGET. */
  monthlyTokenBudget?: number;
  /** Origins allowed to send page beacons. */
  allowedOrigins?: string[];
  /** The docs site's hosts, which a Web Bot Auth signature's @authority must name; default: allowedOrigins' hosts. */
  siteHosts?: string[];
  /** Rotate visitor hashes daily instead of keeping them stable. */
  rotateVisitorIdsDaily?: boolean;
  /** Additions to the built-in write policy of the agent (see docs/agent-jobs.md). */
  writePolicy?: { allow?: string[]; deny?: string[] };
}

export interface Project {
  id: string;
  name: string;
  repository: string;
  ref: string;
  forge: ForgeKind;
  settings: ProjectSettings;
  hasForgeCredentials: boolean;
  createdAt: string;
  updatedAt: string;
}

export function projectFromRow(row: ProjectsTable): Project {
  return {
    id: row.id,
    name: row.name,
    repository: row.repository,
    ref: row.ref,
    forge: row.forge as ForgeKind,
    settings: JSON.parse(row.settings) as ProjectSettings,
    hasForgeCredentials: row.forge_credentials !== null,
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}
