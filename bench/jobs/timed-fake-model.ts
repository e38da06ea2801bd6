import { startFakeModelServer, type FakeModelRequest, type FakeReply } from '../../test/fakes/fake-model-server.js';

/** What the benchmark's "model" does for one prompt; it is told the prompt's round trip. */
export type BenchReply = (request: FakeModelRequest) => FakeReply;

export interface TimedFakeModel {
  /** Base URL for DOCWRIGHT_OPENAI_COMPATIBLE_BASE_URL. */
  url: string;
  /** Registers what the model answers to prompts containing `tag`. */
  expect(tag: string, reply: BenchReply): void;
  /** Wall-clock times (ms since the epoch, sub-millisecond) at which requests for `tag` arrived. */
  arrivals(tag: string): number[];
  forget(tag: string): void;
  close(): Promise<void>;
}

/** Milliseconds since the epoch with the sub-millisecond part, comparable across processes of one machine. */
export const wallClock = (): number => performance.timeOrigin + performance.now();

const TAG = /\[bench:([A-Za-z0-9-]+)\]/;

/**
 * The zero-latency fake chat-completions server of the tests, answering by a tag in the
 * prompt (`[bench:NAME]`) and noting when each request arrived, so the benchmark can tell
 * when a job's run really started: the moment its first model request reached the model.
 */
export async function startTimedFakeModel(): Promise<TimedFakeModel> {
  const replies = new Map<string, BenchReply>();
  const arrivals = new Map<string, number[]>();
  const server = await startFakeModelServer({
    script: (request) => {
      const arrivedAt = wallClock();
      const tag = TAG.exec(request.lastUserText)?.[1];
      const reply = tag === undefined ? undefined : replies.get(tag);
      if (tag === undefined || reply === undefined) return { status: 400, body: { error: { message: 'no [bench:…] tag in the prompt' } } };
      arrivals.set(tag, [...(arrivals.get(tag) ?? []), arrivedAt]);
      return reply(request);
    },
  });
  return {
    url: server.url,
    expect: (tag, reply) => void replies.set(tag, reply),
    arrivals: (tag) => arrivals.get(tag) ?? [],
    forget: (tag) => {
      replies.delete(tag);
      arrivals.delete(tag);
    },
    close: () => server.close(),
  };
}
