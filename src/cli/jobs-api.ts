import type { Job, JobStatus, JobTurn } from '../jobs/job.js';
import { DocwrightApiError, DocwrightNetworkError, ok, type operations } from '../../packages/sdk/src/index.js';

export { retryAfterSeconds } from '../../packages/sdk/src/index.js';
import { cliError, type ApiClient } from './api-client.js';

export type { Job, JobStatus, JobTurn };

export interface JobList {
  jobs: Job[];
  hasMore: boolean;
}

export interface JobConversation {
  messages: JobTurn[];
}

/** The optional branch and review controls of create (docs/agent-jobs.md), as the OpenAPI document has them. */
export type JobCreateControls = Omit<NonNullable<operations['createAgentJob']['requestBody']>['content']['application/json'], 'prompt'>;

/** An event of GET …/job/{id}/events, as the CLI receives it. */
export interface JobStreamEvent {
  id: number;
  type: string;
  data: Record<string, unknown>;
}

export type EventStreamOpening = { ok: true; response: Response } | { ok: false; reason: string };

/** fetch reports every network failure as "fetch failed"; the cause says which (ECONNREFUSED …). */
function networkReason(error: unknown): string {
  if (error instanceof DocwrightNetworkError) return error.reason;
  const cause = (error as Error).cause;
  return cause instanceof Error && cause.message !== '' ? cause.message : (error as Error).message;
}

/** The agent-job endpoints of one project, over the SDK's typed client. */
export class JobsApi {
  constructor(
    private readonly client: ApiClient,
    readonly projectId: string,
  ) {}

  private jobParams(jobId: string) {
    return { path: { projectId: this.projectId, id: jobId } };
  }

  /** Create and message retry a 429 as the SDK does (a short Retry-After only); a longer one is reported with its time. */
  create(prompt: string, idempotencyKey?: string, controls: JobCreateControls = {}): Promise<Job> {
    const header = idempotencyKey === undefined ? undefined : { 'Idempotency-Key': idempotencyKey };
    return this.client.call(() =>
      ok(this.client.sdk().POST('/v2/agent/{projectId}/job', { params: { path: { projectId: this.projectId }, header }, body: { prompt, ...controls } })),
    );
  }

  message(jobId: string, prompt: string, idempotencyKey?: string): Promise<Job> {
    const header = idempotencyKey === undefined ? undefined : { 'Idempotency-Key': idempotencyKey };
    return this.client.call(() =>
      ok(this.client.sdk().POST('/v2/agent/{projectId}/job/{id}/message', { params: { ...this.jobParams(jobId), header }, body: { prompt } })),
    );
  }

  // Reads do not retry: the wait and follow loops poll again on their own schedule.
  get(jobId: string): Promise<Job> {
    return this.client.call(() => ok(this.client.sdk({ retry: false }).GET('/v2/agent/{projectId}/job/{id}', { params: this.jobParams(jobId) })));
  }

  list(query: { status?: JobStatus; limit?: number; offset?: number }): Promise<JobList> {
    return this.client.call(() =>
      ok(this.client.sdk({ retry: false }).GET('/v2/agent/{projectId}/jobs', { params: { path: { projectId: this.projectId }, query } })),
    );
  }

  archive(jobId: string): Promise<Job> {
    return this.client.call(() => ok(this.client.sdk({ retry: false }).POST('/v2/agent/{projectId}/job/{id}/archive', { params: this.jobParams(jobId) })));
  }

  cancel(jobId: string): Promise<Job> {
    return this.client.call(() => ok(this.client.sdk({ retry: false }).POST('/v2/agent/{projectId}/job/{id}/cancel', { params: this.jobParams(jobId) })));
  }

  conversation(jobId: string): Promise<JobConversation> {
    return this.client.call(() => ok(this.client.sdk({ retry: false }).GET('/v2/agent/{projectId}/job/{id}/messages', { params: this.jobParams(jobId) })));
  }

  /**
   * Opens the event stream. Failures that polling could get around (unreachable, 5xx,
   * 429, not an event stream) come back as a reason; a problem that polling would hit
   * too (bad key, unknown job) is thrown as the server's error.
   */
  async openEvents(jobId: string, lastEventId: string | undefined, signal: AbortSignal): Promise<EventStreamOpening> {
    const header = lastEventId === undefined ? undefined : { 'Last-Event-ID': lastEventId };
    const sdk = this.client.sdk({ retry: false });
    let response: Response;
    try {
      ({ response } = await sdk.GET('/v2/agent/{projectId}/job/{id}/events', {
        params: { ...this.jobParams(jobId), header },
        headers: { accept: 'text/event-stream' },
        parseAs: 'stream',
        signal,
      }));
    } catch (error) {
      if (!(error instanceof DocwrightApiError)) return { ok: false, reason: networkReason(error) };
      if (error.status >= 400 && error.status < 500 && error.status !== 408 && error.status !== 429) throw cliError(error, this.client.baseUrl);
      return { ok: false, reason: `the server answered ${error.status}${error.problem ? `: ${error.problem.detail}` : ''}` };
    }
    const type = response.headers.get('content-type') ?? '';
    if (!type.startsWith('text/event-stream') || response.body === null) {
      await response.body?.cancel().catch(() => undefined);
      return { ok: false, reason: `the server answered with ${type || 'no content type'} instead of an event stream` };
    }
    return { ok: true, response };
  }
}
