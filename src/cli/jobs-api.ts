import { DocwrightError } from '../core/errors.js';
import type { Job, JobStatus, JobTurn } from '../jobs/job.js';
import type { ApiClient } from './api-client.js';

export type { Job, JobStatus, JobTurn };

export interface JobList {
  jobs: Job[];
  hasMore: boolean;
}

export interface JobConversation {
  messages: JobTurn[];
}

/** An event of GET …/job/{id}/events, as the CLI receives it. */
export interface JobStreamEvent {
  id: number;
  type: string;
  data: Record<string, unknown>;
}

export type EventStreamOpening = { ok: true; response: Response } | { ok: false; reason: string };

interface ProblemBody {
  code?: string;
  detail?: string;
  errors?: Array<{ path: string; message: string }>;
}

function problemFrom(text: string): ProblemBody {
  try {
    const body: unknown = JSON.parse(text);
    return typeof body === 'object' && body !== null ? body : {};
  } catch {
    return {};
  }
}

/** fetch reports every network failure as "fetch failed"; the cause says which (ECONNREFUSED …). */
function networkReason(error: unknown): string {
  const cause = (error as Error).cause;
  return cause instanceof Error && cause.message !== '' ? cause.message : (error as Error).message;
}

/** Retry-After is either delay-seconds or an HTTP date (RFC 9110 §10.2.3). */
export function retryAfterSeconds(header: string | null, now = Date.now()): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/** The agent-job endpoints of one project, over the CLI's ApiClient. */
export class JobsApi {
  constructor(
    private readonly client: ApiClient,
    readonly projectId: string,
  ) {}

  private path(suffix: string): string {
    return `/v2/agent/${encodeURIComponent(this.projectId)}/${suffix}`;
  }

  private jobPath(jobId: string, suffix = ''): string {
    return this.path(`job/${encodeURIComponent(jobId)}${suffix}`);
  }

  create(prompt: string, idempotencyKey?: string): Promise<Job> {
    return this.command(this.path('job'), prompt, idempotencyKey);
  }

  message(jobId: string, prompt: string, idempotencyKey?: string): Promise<Job> {
    return this.command(this.jobPath(jobId, '/message'), prompt, idempotencyKey);
  }

  async get(jobId: string): Promise<Job> {
    return (await this.client.request<Job>(this.jobPath(jobId))).body;
  }

  async list(query: { status?: string; limit?: number; offset?: number }): Promise<JobList> {
    return (await this.client.request<JobList>(this.path('jobs'), { query })).body;
  }

  async archive(jobId: string): Promise<Job> {
    return (await this.client.request<Job>(this.jobPath(jobId, '/archive'), { method: 'POST' })).body;
  }

  async cancel(jobId: string): Promise<Job> {
    return (await this.client.request<Job>(this.jobPath(jobId, '/cancel'), { method: 'POST' })).body;
  }

  async conversation(jobId: string): Promise<JobConversation> {
    return (await this.client.request<JobConversation>(this.jobPath(jobId, '/messages'))).body;
  }

  /**
   * Opens the event stream. Failures that polling could get around (unreachable, 5xx,
   * 429, not an event stream) come back as a reason; a problem that polling would hit
   * too (bad key, unknown job) is thrown as the server's error.
   */
  async openEvents(jobId: string, lastEventId: string | undefined, signal: AbortSignal): Promise<EventStreamOpening> {
    const headers = this.client.headers({ accept: 'text/event-stream', ...(lastEventId === undefined ? {} : { 'last-event-id': lastEventId }) });
    let response: Response;
    try {
      response = await fetch(this.client.url(this.jobPath(jobId, '/events')), { headers, signal });
    } catch (error) {
      return { ok: false, reason: networkReason(error) };
    }
    if (!response.ok) {
      const problem = problemFrom(await response.text().catch(() => ''));
      if (response.status >= 400 && response.status < 500 && response.status !== 408 && response.status !== 429) {
        throw new DocwrightError(problem.code ?? 'http_error', problem.detail ?? `The server answered ${response.status}.`, {
          status: response.status,
          errors: problem.errors,
        });
      }
      return { ok: false, reason: `the server answered ${response.status}${problem.detail ? `: ${problem.detail}` : ''}` };
    }
    const type = response.headers.get('content-type') ?? '';
    if (!type.startsWith('text/event-stream') || response.body === null) {
      await response.body?.cancel().catch(() => undefined);
      return { ok: false, reason: `the server answered with ${type || 'no content type'} instead of an event stream` };
    }
    return { ok: true, response };
  }

  /**
   * Create and message go around ApiClient.request because a 429's Retry-After header is
   * part of what the user needs to hear, and ApiClient keeps only the problem body.
   */
  private async command(path: string, prompt: string, idempotencyKey: string | undefined): Promise<Job> {
    const headers = this.client.headers({ 'content-type': 'application/json', ...(idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey }) });
    let response: Response;
    try {
      response = await fetch(this.client.url(path), { method: 'POST', headers, body: JSON.stringify({ prompt }) });
    } catch (error) {
      throw new DocwrightError(
        'server_unreachable',
        `Cannot reach the Docwright server at ${this.client.baseUrl} (set DOCWRIGHT_URL): ${networkReason(error)}`,
        { cause: error },
      );
    }
    const text = await response.text();
    if (response.ok) return JSON.parse(text) as Job;
    const problem = problemFrom(text);
    let message = problem.detail ?? `The server answered ${response.status}.`;
    const retryAfter = response.status === 429 ? retryAfterSeconds(response.headers.get('retry-after')) : undefined;
    if (retryAfter !== undefined) {
      message += ` Retry after ${retryAfter} s (at ${new Date(Date.now() + retryAfter * 1000).toISOString()}).`;
    }
    throw new DocwrightError(problem.code ?? 'http_error', message, { status: response.status, errors: problem.errors });
  }
}
