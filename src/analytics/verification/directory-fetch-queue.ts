/**
 * How many key-directory fetches may run and wait: in all, and per project. A request
 * names the directory (Signature-Agent), and anyone who can send a project's beacon can
 * write one, so without a per-project share one project's hits could take every slot.
 */
export interface FetchBudget {
  concurrency: number;
  queued: number;
  perProjectConcurrency: number;
  perProjectQueued: number;
}

/** Real signers are a handful per site: 2 running and 8 waiting per project is room to spare. */
export const DEFAULT_FETCH_BUDGET: FetchBudget = Object.freeze({ concurrency: 4, queued: 64, perProjectConcurrency: 2, perProjectQueued: 8 });

interface Waiting {
  agentUrl: string;
  project: string;
}

/**
 * The fetches of KeyDirectoryCache, first come first served within the budget. A request
 * beyond it is refused, not kept: its hit is labelled as for an unavailable directory (by
 * the other checks) and a later hit asks again.
 */
export class DirectoryFetchQueue {
  private readonly waiting: Waiting[] = [];
  /** Running fetches: directory → the project it was asked for. */
  private readonly running = new Map<string, string>();

  constructor(
    private readonly budget: FetchBudget,
    private readonly run: (agentUrl: string, project: string) => Promise<void>,
  ) {}

  /** Whether the directory is being fetched or waits to be. */
  has(agentUrl: string): boolean {
    return this.running.has(agentUrl) || this.waiting.some((entry) => entry.agentUrl === agentUrl);
  }

  get idle(): boolean {
    return this.running.size === 0 && this.waiting.length === 0;
  }

  /** Queues a fetch for `project`; false when the budget has no room for it. */
  offer(agentUrl: string, project: string): boolean {
    if (this.has(agentUrl)) return true;
    if (this.waiting.length >= this.budget.queued) return false;
    if (count(this.waiting.values(), project) >= this.budget.perProjectQueued) return false;
    this.waiting.push({ agentUrl, project });
    this.pump();
    return true;
  }

  /** Starts waiting fetches while there is room, skipping those whose project has its share running. */
  private pump(): void {
    for (let index = 0; index < this.waiting.length && this.running.size < this.budget.concurrency;) {
      const next = this.waiting[index]!;
      if (count(this.running.values(), next.project) >= this.budget.perProjectConcurrency) {
        index++;
        continue;
      }
      this.waiting.splice(index, 1);
      this.running.set(next.agentUrl, next.project);
      void this.run(next.agentUrl, next.project).finally(() => {
        this.running.delete(next.agentUrl);
        this.pump();
      });
    }
  }
}

function count(entries: Iterable<Waiting | string>, project: string): number {
  let total = 0;
  for (const entry of entries) if ((typeof entry === 'string' ? entry : entry.project) === project) total++;
  return total;
}
