import { timeRawClone } from './git-baseline.js';
import { describeOutcome, eventTime, type JobClient } from './job-client.js';
import type { TimedFakeModel } from './timed-fake-model.js';

export interface PickupResult {
  jobs: number;
  /** create sent → the job's first request reached the model, ms per job. */
  toFirstModelRequest: number[];
  /** create sent → the turn.started event's server time, ms per job. */
  toTurnStarted: number[];
  /** create sent → the 201 answer arrived, ms per job. */
  createRoundTrip: number[];
  /** A raw `git clone` of the same repository, ms, one per job: the part of pickup no queue can save. */
  rawClone: number[];
  /** Jobs whose event stream ended without their job.completed event. */
  missedSettlingEvents: number;
}

export interface PickupOptions {
  /** Creates each job and follows its events (a cluster's client may spread them over API processes). */
  client: Pick<JobClient, 'create' | 'waitForSettled'>;
  model: TimedFakeModel;
  jobs: number;
  /** The project's repository, cloned raw between jobs for the baseline. */
  repository: string;
  cloneDirectory: string;
  log: (message: string) => void;
}

/**
 * Creates jobs one at a time against an idle worker and times how soon each run starts.
 * Each job is awaited to the end before the next is created, so the figure is the pickup
 * of a job by a waiting worker, never time spent queued behind other jobs. The model
 * answers at once without tools, so nothing but pickup and workspace preparation lies
 * between the create request and the model request.
 */
export async function measurePickupLatency(options: PickupOptions): Promise<PickupResult> {
  const { client, model } = options;
  const result: PickupResult = { jobs: options.jobs, toFirstModelRequest: [], toTurnStarted: [], createRoundTrip: [], rawClone: [], missedSettlingEvents: 0 };
  const warmups = 3;
  for (let index = -warmups; index < options.jobs; index++) {
    const clone = await timeRawClone(options.repository, options.cloneDirectory);
    const tag = `pickup-${index + warmups}`;
    model.expect(tag, () => ({ text: 'The docs already cover this; nothing to change.' }));
    const created = await client.create(`[bench:${tag}] Check that the quickstart mentions installation.`);
    const settled = await client.waitForSettled(created.id);
    const first = model.arrivals(tag)[0];
    model.forget(tag);
    if (settled.status !== 'completed' || first === undefined)
      throw new Error(`pickup job ${created.id} ended ${describeOutcome(settled)}${first === undefined ? ', without asking the model' : ''}`);
    if (settled.missedSettlingEvent) result.missedSettlingEvents++;
    if (index < 0) continue;
    result.toFirstModelRequest.push(first - created.sentAt);
    result.toTurnStarted.push(eventTime(settled.events, 'turn.started') - created.sentAt);
    result.createRoundTrip.push(created.answeredAt - created.sentAt);
    result.rawClone.push(clone);
    if ((index + 1) % 50 === 0) options.log(`jobs: pickup ${index + 1}/${options.jobs}`);
  }
  return result;
}
