import type { LocalForge } from '../git/forges/local-forge.js';
import type { ProjectRepository } from '../projects/project-repository.js';
import { renderPullRequestPage } from './local-pull-request-page.js';
import type { RenderedDiffCache } from './rendered-diff-cache.js';

/**
 * The pages `prLink` points at for local-forge projects: the pull request's text and its
 * diff, for whoever holds the link's share token.
 */
export class LocalPullRequestPages {
  constructor(
    private readonly forge: LocalForge,
    private readonly projects: ProjectRepository,
    readonly diffs: RenderedDiffCache,
  ) {}

  /** The HTML page, or null for an unknown pull request and a missing or wrong token alike. */
  async render(projectId: string, number: number, token: string | undefined): Promise<string | null> {
    const pr = await this.forge.findShared(projectId, number, token);
    if (pr === null) return null;
    const project = await this.projects.find(projectId);
    if (project === null) return null;
    // A broken repository (moved, branch deleted) still shows the description.
    const diff = await this.diffs.get(project.repository, pr.base, pr.head).catch(() => null);
    return renderPullRequestPage(pr, diff);
  }
}
