/**
 * Which projects' hits asked for each cached key directory. A project holds at most
 * `perProject` directories: its next one lets its oldest go, and a directory leaves the
 * cache only when no project holds it any more. So one project's hits naming endless
 * directories evict only that project's own, never the keys another project asked for.
 */
export class DirectoryOwners {
  /** Per project, its directories, the least recently asked for first. */
  private readonly byProject = new Map<string, Set<string>>();
  private readonly byDirectory = new Map<string, Set<string>>();

  constructor(private readonly perProject: number) {}

  /** The projects holding the directory (none: it is no project's). */
  owners(agentUrl: string): ReadonlySet<string> {
    return this.byDirectory.get(agentUrl) ?? new Set();
  }

  /** Records that `project` asked for the directory; returns the directories no project holds any more. */
  claim(agentUrl: string, project: string): string[] {
    let held = this.byProject.get(project);
    if (held === undefined) this.byProject.set(project, (held = new Set()));
    held.delete(agentUrl);
    held.add(agentUrl);
    let owners = this.byDirectory.get(agentUrl);
    if (owners === undefined) this.byDirectory.set(agentUrl, (owners = new Set()));
    owners.add(project);
    const released: string[] = [];
    while (held.size > this.perProject) {
      const oldest = held.values().next().value!;
      held.delete(oldest);
      const others = this.byDirectory.get(oldest);
      others?.delete(project);
      if (others === undefined || others.size === 0) {
        this.byDirectory.delete(oldest);
        released.push(oldest);
      }
    }
    return released;
  }

  /** Forgets a directory the cache let go for its overall bound. */
  drop(agentUrl: string): void {
    for (const project of this.byDirectory.get(agentUrl) ?? []) {
      const held = this.byProject.get(project);
      held?.delete(agentUrl);
      if (held?.size === 0) this.byProject.delete(project);
    }
    this.byDirectory.delete(agentUrl);
  }
}
