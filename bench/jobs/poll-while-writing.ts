import type { JobClient } from './job-client.js';
import { comparePollThroughput, type LoadSettings, type PollComparison } from './poll-throughput.js';
import type { TimedFakeModel } from './timed-fake-model.js';

export interface WritingLoad {
  /** Jobs running at once (the server's worker concurrency must allow them all). */
  jobs: number;
  /** The model's answer time per step; each step writes one `step` event. */
  stepDelayMs: number;
  /** Steps per turn; then the turn ends and the job's next queued follow-up starts. */
  stepsPerTurn: number;
  /** Follow-ups queued behind each job's first turn: they keep it active for the whole measurement. */
  turnsPerJob: number;
}

export interface PollWhileWriting extends PollComparison {
  load: WritingLoad;
  /** Step events the workers committed per second during the rounds (both sides' rounds). */
  eventsPerSecond: number;
}

/**
 * The poll benchmark with the cache under pressure: `load.jobs` jobs stay active, each
 * asking the model again and again (a cheap tool call per step after `stepDelayMs`), so
 * the worker commits a `step` event — a write transaction and, on PostgreSQL, a NOTIFY
 * that drops the job's cached row — several times a second per job. A turn ends after
 * `stepsPerTurn` steps and the job's next queued follow-up starts (a fresh clone, a short
 * conversation, as real turns are), so jobs stay active without conversations growing
 * past what real ones reach. The load polls those jobs in turn. The bare Fastify rounds
 * run while the jobs keep writing too, so both sides share the machine with the same
 * background work. The jobs are archived afterwards (which drops their queued turns).
 */
export async function comparePollWhileWriting(options: {
  client: JobClient;
  model: TimedFakeModel;
  serverUrl: string;
  serverPid: number;
  projectId: string;
  apiKey: string;
  bareUrl: string;
  barePid: number;
  load: WritingLoad;
  settings: LoadSettings;
  log: (message: string) => void;
}): Promise<PollWhileWriting> {
  const { client, model, load } = options;
  let stopping = false;
  const tags = Array.from({ length: load.jobs }, (_, index) => `writing-${index}`);
  for (const tag of tags) {
    model.expect(tag, (request) =>
      stopping || request.toolRounds >= load.stepsPerTurn
        ? { text: 'Nothing to change after all.', delayMs: stopping ? 0 : load.stepDelayMs }
        : // One line of one file: cheap for the worker's tools, so what is measured is the writing.
          {
            toolCalls: [{ name: 'read_file', arguments: { path: 'docs.json', startLine: 1, endLine: 1 } }],
            delayMs: load.stepDelayMs,
            usage: { inputTokens: 1, outputTokens: 1 },
          },
    );
  }
  const ids: string[] = [];
  try {
    for (const tag of tags) ids.push((await client.create(`[bench:${tag}] Read the navigation file a few times.`)).id);
    await Promise.all(
      ids.map(async (id, index) => {
        for (let turn = 0; turn < load.turnsPerJob; turn++) await client.message(id, `[bench:${tags[index] ?? ''}] Read it again (${turn + 1}).`);
      }),
    );
    // Running and writing: each job has been to the model twice, i.e. committed a step.
    const deadline = Date.now() + 120_000;
    while (tags.some((tag) => model.arrivals(tag).length < 2)) {
      if (Date.now() > deadline) throw new Error('the writing jobs did not all start within two minutes (is the worker concurrency below the job count?)');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const steps = (): number => tags.reduce((sum, tag) => sum + model.arrivals(tag).length, 0);
    const stepsBefore = steps();
    const startedAt = performance.now();
    const comparison = await comparePollThroughput({
      pollUrl: options.serverUrl,
      apiKey: options.apiKey,
      pollPid: options.serverPid,
      bareUrl: options.bareUrl,
      barePid: options.barePid,
      paths: ids.map((id) => `/v2/agent/${options.projectId}/job/${id}`),
      settings: options.settings,
      log: (message) => options.log(message.replace('poll round', 'poll-while-writing round')),
    });
    const eventsPerSecond = (steps() - stepsBefore) / ((performance.now() - startedAt) / 1000);
    const states = await Promise.all(ids.map((id) => client.get(id)));
    const ended = states.filter((state) => state.status !== 'active');
    if (ended.length > 0)
      throw new Error(
        `${ended.length} writing job(s) ended during the rounds (${ended.map((state) => state.error?.code ?? state.status).join(', ')}): the figure would not be of active jobs`,
      );
    return { ...comparison, load, eventsPerSecond };
  } finally {
    stopping = true;
    // Stops each running turn and drops the queued ones.
    for (const id of ids) await client.archive(id);
    for (const tag of tags) model.forget(tag);
  }
}
