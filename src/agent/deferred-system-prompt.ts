import { wrapLanguageModel, type LanguageModel, type LanguageModelMiddleware } from 'ai';

// The provider-spec types, named through `ai`'s exports (the spec package is not a direct dependency).
type WrapGenerate = NonNullable<LanguageModelMiddleware['wrapGenerate']>;
type LanguageModelV3 = Parameters<WrapGenerate>[0]['model'];
type LanguageModelV3CallOptions = Parameters<WrapGenerate>[0]['params'];
type LanguageModelV3GenerateResult = Awaited<ReturnType<WrapGenerate>>;
type LanguageModelV3Usage = LanguageModelV3GenerateResult['usage'];

export interface DeferredSystemOptions {
  model: LanguageModel;
  /** The system prompt, once known (it waits for the clone); must never reject. */
  system: Promise<string>;
  /**
   * The prompt a call may go out with while `system` is still unknown, on the bet that it
   * will turn out the same; null: calls wait for `system`.
   */
  speculative: string | null;
}

/**
 * The model, sending every call with a system prompt that is known only later (the
 * repository's AGENTS.md is in the clone). With a `speculative` prompt the first call
 * goes out at once, so the clone still runs beside the model's first answer; its answer
 * is held until `system` is known, and only used when the bet was right. Otherwise the
 * call is aborted (or its answer dropped) and sent again with the real prompt; a dropped
 * answer's tokens are added to the retry's usage, since they were spent. No tool call can
 * run before `system` is known: the SDK only sees an answer after that.
 *
 * Only non-AI-SDK-v3 models (an id string, a v2 model) cannot be wrapped: for those the
 * caller must await `system` and pass it directly.
 */
export function withDeferredSystem(options: DeferredSystemOptions): LanguageModelV3 | null {
  const { model, system, speculative } = options;
  if (typeof model !== 'object' || model.specificationVersion !== 'v3') return null;
  let known: string | undefined;
  void system.then((value) => {
    known = value;
  });
  return wrapLanguageModel({
    model,
    middleware: {
      specificationVersion: 'v3',
      wrapGenerate: async ({ params, model: inner }) => {
        if (known !== undefined) return inner.doGenerate(withSystem(params, known));
        if (speculative === null) return inner.doGenerate(withSystem(params, await unlessAborted(system, params.abortSignal)));
        const stop = new AbortController();
        const signal = params.abortSignal === undefined ? stop.signal : AbortSignal.any([params.abortSignal, stop.signal]);
        const attempt = settle(inner.doGenerate({ ...withSystem(params, speculative), abortSignal: signal }));
        const final = await unlessAborted(system, params.abortSignal).catch(async (error: unknown) => {
          await attempt;
          throw error;
        });
        if (final === speculative) {
          const outcome = await attempt;
          if (outcome.ok) return outcome.result;
          throw outcome.error;
        }
        stop.abort();
        const dropped = await attempt;
        const redone = await inner.doGenerate(withSystem(params, final));
        return dropped.ok ? { ...redone, usage: addUsage(redone.usage, dropped.result.usage) } : redone;
      },
    },
  });
}

/** The call's prompt with its system message replaced (the SDK sends `system` as the first message). */
function withSystem(params: LanguageModelV3CallOptions, system: string): LanguageModelV3CallOptions {
  const index = params.prompt.findIndex((message) => message.role === 'system');
  const prompt = [...params.prompt];
  const found = prompt[index];
  // The message keeps its provider options: its prompt-cache mark (prompt-cache.ts).
  if (found === undefined) prompt.unshift({ role: 'system', content: system });
  else prompt[index] = { ...found, role: 'system', content: system };
  return { ...params, prompt };
}

type Settled = { ok: true; result: LanguageModelV3GenerateResult } | { ok: false; error: unknown };

function settle(call: PromiseLike<LanguageModelV3GenerateResult>): Promise<Settled> {
  return Promise.resolve(call).then(
    (result) => ({ ok: true, result }),
    (error: unknown) => ({ ok: false, error }),
  );
}

/** The promise's value, or the signal's reason as soon as it fires (as an aborted fetch would throw). */
export async function unlessAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return promise;
  signal.throwIfAborted();
  let onAbort = (): void => undefined;
  const aborted = new Promise<never>((_resolve, reject) => {
    onAbort = () => {
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([promise, aborted]);
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

const sum = (left: number | undefined, right: number | undefined): number | undefined =>
  left === undefined && right === undefined ? undefined : (left ?? 0) + (right ?? 0);

function addUsage(left: LanguageModelV3Usage, right: LanguageModelV3Usage): LanguageModelV3Usage {
  return {
    ...left,
    inputTokens: {
      total: sum(left.inputTokens.total, right.inputTokens.total),
      noCache: sum(left.inputTokens.noCache, right.inputTokens.noCache),
      cacheRead: sum(left.inputTokens.cacheRead, right.inputTokens.cacheRead),
      cacheWrite: sum(left.inputTokens.cacheWrite, right.inputTokens.cacheWrite),
    },
    outputTokens: {
      total: sum(left.outputTokens.total, right.outputTokens.total),
      text: sum(left.outputTokens.text, right.outputTokens.text),
      reasoning: sum(left.outputTokens.reasoning, right.outputTokens.reasoning),
    },
  };
}
