import { Agent, request } from 'node:http';
import { wallClock } from './timed-fake-model.js';

export interface JobEventRecord {
  type: string;
  /** Server wall-clock time of the event, ms since the epoch (millisecond resolution). */
  at: number;
  /** Client wall-clock time the event arrived on the stream. */
  receivedAt: number;
}

export interface CreatedJob {
  id: string;
  status: string;
  /** Client wall-clock time just before the request was written. */
  sentAt: number;
  /** Client wall-clock time the whole 201 response had arrived. */
  answeredAt: number;
}

export interface SettledJob {
  status: string;
  prLink: string | null;
  /** Set when the job failed. */
  error?: { code: string; message: string };
  events: JobEventRecord[];
  /** Client wall-clock time the settling event (job.completed / job.failed) arrived, else the stream's end. */
  settledAt: number;
  /** The stream ended without sending a settling event (the job had settled all the same). */
  missedSettlingEvent: boolean;
}

const SETTLING = new Set(['job.completed', 'job.failed', 'job.archived']);

/** A client of the job API over keep-alive HTTP, timing what a caller would see. */
export class JobClient {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 16 });

  constructor(
    private readonly baseUrl: string,
    private readonly projectId: string,
    private readonly apiKey: string,
  ) {}

  async create(prompt: string): Promise<CreatedJob> {
    const body = JSON.stringify({ prompt });
    const sentAt = wallClock();
    const answer = await this.send('POST', `/v2/agent/${this.projectId}/job`, body);
    const answeredAt = wallClock();
    if (answer.status !== 201) throw new Error(`create answered ${answer.status}: ${answer.body.slice(0, 500)}`);
    const job = JSON.parse(answer.body) as { id: string; status: string };
    return { id: job.id, status: job.status, sentAt, answeredAt };
  }

  /** A follow-up; queued behind the running turn of an active job. */
  async message(jobId: string, prompt: string): Promise<void> {
    const answer = await this.send('POST', `/v2/agent/${this.projectId}/job/${jobId}/message`, JSON.stringify({ prompt }));
    if (answer.status !== 200) throw new Error(`message answered ${answer.status}: ${answer.body.slice(0, 500)}`);
  }

  /** Archives the job: a running turn stops, queued ones are dropped. */
  async archive(jobId: string): Promise<void> {
    const answer = await this.send('POST', `/v2/agent/${this.projectId}/job/${jobId}/archive`, '{}');
    if (answer.status !== 200) throw new Error(`archive answered ${answer.status}: ${answer.body.slice(0, 500)}`);
  }

  async get(jobId: string): Promise<{ status: string; prLink: string | null; error?: { code: string; message: string } }> {
    const answer = await this.send('GET', `/v2/agent/${this.projectId}/job/${jobId}`);
    if (answer.status !== 200) throw new Error(`get answered ${answer.status}: ${answer.body.slice(0, 500)}`);
    return JSON.parse(answer.body) as { status: string; prLink: string | null; error?: { code: string; message: string } };
  }

  /**
   * Follows the job's Server-Sent Events from the first one until it settles. The stream
   * replays every event, so it can be opened after the create answer without missing any,
   * and it says the moment the job settled without a polling interval blurring it.
   */
  waitForSettled(jobId: string, timeoutMs = 120_000): Promise<SettledJob> {
    return new Promise((resolve, reject) => {
      const events: JobEventRecord[] = [];
      let settledAt = 0;
      let buffer = '';
      const outgoing = request(
        new URL(`/v2/agent/${this.projectId}/job/${jobId}/events`, this.baseUrl),
        { method: 'GET', headers: { authorization: `Bearer ${this.apiKey}`, accept: 'text/event-stream' } },
        (response) => {
          if (response.statusCode !== 200) {
            reject(new Error(`events answered ${String(response.statusCode)}`));
            response.resume();
            return;
          }
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => {
            const receivedAt = wallClock();
            buffer += chunk;
            for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
              const record = parseEvent(buffer.slice(0, end), receivedAt);
              buffer = buffer.slice(end + 2);
              if (record === null) continue;
              events.push(record);
              if (SETTLING.has(record.type) && settledAt === 0) settledAt = receivedAt;
            }
          });
          response.on('end', () => {
            clearTimeout(timer);
            const missedSettlingEvent = settledAt === 0;
            if (missedSettlingEvent) settledAt = wallClock();
            void this.get(jobId).then(
              (job) => resolve({ status: job.status, prLink: job.prLink, ...(job.error ? { error: job.error } : {}), events, settledAt, missedSettlingEvent }),
              reject,
            );
          });
          response.on('error', reject);
        },
      );
      const timer = setTimeout(() => outgoing.destroy(new Error(`job ${jobId} did not settle within ${timeoutMs} ms`)), timeoutMs);
      outgoing.on('error', reject);
      outgoing.end();
    });
  }

  close(): void {
    this.agent.destroy();
  }

  private send(method: 'GET' | 'POST', path: string, body?: string): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string> = { authorization: `Bearer ${this.apiKey}` };
      if (body !== undefined) Object.assign(headers, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
      const outgoing = request(new URL(path, this.baseUrl), { method, agent: this.agent, headers }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
        response.on('error', reject);
      });
      outgoing.on('error', reject);
      outgoing.end(body);
    });
  }
}

function parseEvent(block: string, receivedAt: number): JobEventRecord | null {
  let type: string | undefined;
  let data: string | undefined;
  for (const line of block.split('\n')) {
    if (line.startsWith('event: ')) type = line.slice(7);
    else if (line.startsWith('data: ')) data = line.slice(6);
  }
  if (type === undefined || data === undefined) return null;
  const at = Date.parse((JSON.parse(data) as { at?: string }).at ?? '');
  return { type, at, receivedAt };
}

/** Why a job did not end as expected, for an error message. */
export function describeOutcome(job: SettledJob): string {
  return `${job.status}${job.error ? ` (${job.error.code}: ${job.error.message})` : ''}, prLink ${String(job.prLink)}`;
}

/** The server time of the first event of `type`, or NaN. */
export function eventTime(events: readonly JobEventRecord[], type: string): number {
  return events.find((event) => event.type === type)?.at ?? Number.NaN;
}
