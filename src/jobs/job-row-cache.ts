import type { Clock } from '../core/clock.js';
import type { BatchedRead } from '../db/batched-read.js';
import type { JobsTable } from '../db/schema.js';
import type { Notifier } from '../queue/notifier.js';

/**
 * The longest a cached row answers without a notification. Notifications drop an entry as
 * soon as its row changes; this bound only covers what a notification cannot announce: a
 * writer killed between its commit and its NOTIFY, or a LISTEN connection that died
 * without its socket noticing. Polls are re-read this often per job at most.
 */
export const JOB_ROW_MAX_AGE_MS = 1_000;
/** Jobs polled at once in one process, at most; beyond that the oldest entries go. */
const MAX_ENTRIES = 10_000;

interface Entry {
  row: JobsTable;
  /** When the read that produced the row began (not ended): the age bound is counted from there. */
  readAt: number;
  epoch: number;
  projectVersion: number;
}

/** What the cache needs of the process's Notifier. */
export type JobRowNotifications = Pick<Notifier, 'subscribe' | 'onListenerChange' | 'listening'>;

/** A read in flight: stored only if nothing that concerns its job happened meanwhile. */
interface Ticket {
  epoch: number;
  projectVersion: number;
  spoiled: boolean;
}

/**
 * The poll read on PostgreSQL: an in-process copy of job rows, so a poll loop costs no
 * round trip, kept exact by the notifications every writer of a job row already sends
 * (docs/architecture.md, "The poll route"):
 *
 * - `docwright_job_events` (a job id) drops that job: every transaction that changes a
 *   job's row also appends one of its events and publishes this after committing.
 * - `docwright_project_jobs` (a project id) drops the project's jobs: pull-request merges
 *   and closes change a job's row without an event.
 * - `docwright_keys` (keys revoked, a project deleted) and any change of the LISTEN
 *   connection (up or down: notifications may have been missed) drop everything.
 * - While the LISTEN connection is down nothing is cached: every poll reads the store.
 * - A read that was in flight when its job, its project or the connection changed is
 *   answered but not kept, so an answer older than the notification never outlives it.
 *
 * Writers that answer a client (a follow-up, archiving, a merge) wait for their own
 * notification to come back before answering (`Notifier.publishAndConfirm`), so a poll
 * sent to any process after that answer sees the change.
 */
export class JobRowCache {
  private readonly entries = new Map<string, Entry>();
  private readonly projectVersions = new Map<string, number>();
  private readonly reading = new Map<string, Set<Ticket>>();
  private epoch = 0;
  private readonly unsubscribers: Array<() => void>;

  constructor(
    private readonly load: BatchedRead<JobsTable>,
    private readonly notifier: JobRowNotifications,
    private readonly clock: Clock,
  ) {
    this.unsubscribers = [
      notifier.subscribe('docwright_job_events', (jobId) => this.jobChanged(jobId)),
      notifier.subscribe('docwright_project_jobs', (projectId) => this.projectChanged(projectId)),
      notifier.subscribe('docwright_keys', () => this.forgetAll()),
      notifier.onListenerChange(() => this.forgetAll()),
    ];
  }

  /** The job's row if it belongs to the project, as the store has it (see the class comment). */
  async read(projectId: string, jobId: string): Promise<JobsTable | undefined> {
    if (!this.notifier.listening) return scoped(await this.load(jobId), projectId);
    const now = this.clock.now();
    const entry = this.entries.get(jobId);
    if (entry !== undefined) {
      if (this.valid(entry, now)) return scoped(entry.row, projectId);
      this.entries.delete(jobId);
    }
    const ticket: Ticket = { epoch: this.epoch, projectVersion: this.versionOf(projectId), spoiled: false };
    let tickets = this.reading.get(jobId);
    if (tickets === undefined) this.reading.set(jobId, (tickets = new Set()));
    tickets.add(ticket);
    let row: JobsTable | undefined;
    try {
      row = await this.load(jobId);
    } finally {
      tickets.delete(ticket);
      if (tickets.size === 0 && this.reading.get(jobId) === tickets) this.reading.delete(jobId);
    }
    // Only a row of the asked project is kept: its project's notifications are the ones the ticket watched.
    const current = !ticket.spoiled && ticket.epoch === this.epoch && ticket.projectVersion === this.versionOf(projectId);
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- the LISTEN connection may have dropped during the read, which narrowing cannot see
    if (row?.project_id === projectId && current && this.notifier.listening)
      this.store(jobId, { row, readAt: now, epoch: ticket.epoch, projectVersion: ticket.projectVersion });
    return scoped(row, projectId);
  }

  /** Entries held now; for tests. */
  get size(): number {
    return this.entries.size;
  }

  close(): void {
    for (const unsubscribe of this.unsubscribers) unsubscribe();
    this.forgetAll();
  }

  private valid(entry: Entry, now: number): boolean {
    const age = now - entry.readAt;
    // A clock that moved back counts as expired: the bound must hold whichever way it moves.
    return entry.epoch === this.epoch && entry.projectVersion === this.versionOf(entry.row.project_id) && age >= 0 && age < JOB_ROW_MAX_AGE_MS;
  }

  private store(jobId: string, entry: Entry): void {
    this.entries.delete(jobId);
    this.entries.set(jobId, entry);
    if (this.entries.size > MAX_ENTRIES) {
      const oldest = this.entries.keys().next();
      if (oldest.done !== true) this.entries.delete(oldest.value);
    }
  }

  private versionOf(projectId: string): number {
    return this.projectVersions.get(projectId) ?? 0;
  }

  private jobChanged(jobId: string): void {
    this.entries.delete(jobId);
    for (const ticket of this.reading.get(jobId) ?? []) ticket.spoiled = true;
  }

  private projectChanged(projectId: string): void {
    // Entries and tickets of the project compare against this version: one step drops them all.
    this.projectVersions.set(projectId, this.versionOf(projectId) + 1);
  }

  private forgetAll(): void {
    this.epoch += 1;
    this.entries.clear();
    this.projectVersions.clear();
  }
}

const scoped = (row: JobsTable | undefined, projectId: string): JobsTable | undefined => (row?.project_id === projectId ? row : undefined);
