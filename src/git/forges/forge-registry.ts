import type { Clock } from '../../core/clock.js';
import type { Config } from '../../config/load-config.js';
import type { Database } from '../../db/database.js';
import type { Forge, ForgeKind } from './forge.js';
import { GitHubForge } from './github-forge.js';
import { GitLabForge } from './gitlab-forge.js';
import { LocalForge } from './local-forge.js';

export interface ForgeRegistry {
  local: LocalForge;
  forKind(kind: ForgeKind): Forge;
}

/** One forge client per kind, configured from the environment once. */
export function createForgeRegistry(config: Config, database: Database, clock: Clock): ForgeRegistry {
  const local = new LocalForge(database, clock, () => config.publicUrl);
  const github = new GitHubForge({ apiBaseUrl: config.forges.githubApiUrl, gitBaseUrl: config.forges.githubGitUrl, clock });
  const gitlab = new GitLabForge({ apiBaseUrl: config.forges.gitlabApiUrl, gitBaseUrl: config.forges.gitlabGitUrl });
  return {
    local,
    forKind(kind) {
      return kind === 'github' ? github : kind === 'gitlab' ? gitlab : local;
    },
  };
}
