import { APICallError, wrapLanguageModel, type LanguageModel, type LanguageModelMiddleware } from 'ai';
import { ModelError } from './model-errors.js';

// The provider-spec types, named through `ai`'s exports (the spec package is not a direct dependency).
type WrapGenerate = NonNullable<LanguageModelMiddleware['wrapGenerate']>;
type LanguageModelV3 = Parameters<WrapGenerate>[0]['model'];
type CallOptions = Parameters<WrapGenerate>[0]['params'];
type GenerateResult = Awaited<ReturnType<WrapGenerate>>;
type Content = GenerateResult['content'][number];
type StreamResult = Awaited<ReturnType<LanguageModelV3['doStream']>>;
type StreamPart = StreamResult['stream'] extends ReadableStream<infer Part> ? Part : never;
type ProviderMetadata = NonNullable<GenerateResult['providerMetadata']>;

export interface GenerateByStreamingOptions {
  /**
   * Longest silence between two chunks (or before the first) before the call is abandoned.
   * Well under undici's 300 s headers/body timeouts, so Docwright, not fetch, decides.
   */
  idleTimeoutMs?: number;
}

export const DEFAULT_IDLE_TIMEOUT_MS = 120_000;

/**
 * The model, with every `doGenerate` served through its `doStream`: the SDK's generate loop
 * is unchanged, only the wire call streams. Headers then arrive at once and tokens keep
 * arriving, so a long answer no longer runs into fetch's 300 s timeouts (after which the SDK
 * would pay for the whole generation again); a stall is caught by the idle timeout instead;
 * and a stream cut short is reported as exactly that rather than as a parse failure.
 *
 * A model given by id (or an older spec) cannot be wrapped and is returned unchanged.
 */
export function generateByStreaming(model: LanguageModelV3, options?: GenerateByStreamingOptions): LanguageModelV3;
export function generateByStreaming(model: LanguageModel, options?: GenerateByStreamingOptions): LanguageModel;
export function generateByStreaming(model: LanguageModel, options: GenerateByStreamingOptions = {}): LanguageModel {
  if (typeof model !== 'object' || model.specificationVersion !== 'v3') return model;
  const idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  return wrapLanguageModel({
    model,
    middleware: {
      specificationVersion: 'v3',
      wrapGenerate: ({ params, model: inner }) => generateThroughStream(inner, params, idleTimeoutMs),
    },
  });
}

async function generateThroughStream(model: LanguageModelV3, params: CallOptions, idleTimeoutMs: number): Promise<GenerateResult> {
  const idle = new AbortController();
  const signal = params.abortSignal === undefined ? idle.signal : AbortSignal.any([params.abortSignal, idle.signal]);
  let timer: NodeJS.Timeout | undefined;
  const arm = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      idle.abort();
    }, idleTimeoutMs);
  };
  const collector = new StreamCollector();
  // True while waiting on the wire: a failure then is the connection's, not the content's.
  let reading = false;
  let reader: ReadableStreamDefaultReader<StreamPart> | undefined;
  arm();
  try {
    const result = await model.doStream({ ...params, abortSignal: signal, includeRawChunks: false });
    reader = result.stream.getReader();
    for (;;) {
      reading = true;
      const { done, value } = await reader.read();
      reading = false;
      if (done) break;
      arm();
      collector.add(value);
    }
    reader = undefined;
    return collector.result(result);
  } catch (error) {
    // The caller's own abort (cancel, deadline) stays an abort: the run decides what it means.
    if (params.abortSignal?.aborted === true) throw error;
    if (idle.signal.aborted) {
      throw new ModelError(
        `The model provider sent nothing for ${seconds(idleTimeoutMs)} (the per-step idle timeout, after ${collector.parts} stream parts); the call was abandoned.`,
        { retryable: true },
      );
    }
    // The SDK reports a body that broke off as "HTTP 200 … Failed to process successful
    // response" (also from a provider that reads the first event before returning the stream).
    const brokeOff = reading || (APICallError.isInstance(error) && error.statusCode !== undefined && error.statusCode >= 200 && error.statusCode < 300);
    if (brokeOff) throw streamCut(collector.parts);
    // HTTP statuses, refused connections and errors the provider reported in the stream pass
    // on as they are, with their status and headers.
    throw error;
  } finally {
    clearTimeout(timer);
    reader?.cancel().catch(() => undefined);
  }
}

function streamCut(parts: number): ModelError {
  return new ModelError(`The model provider's stream ended before the answer was complete (after ${parts} parts).`, { retryable: true });
}

const seconds = (milliseconds: number): string => `${Math.round(milliseconds / 100) / 10} s`;

/** An open text or reasoning block: its content entry, filled as deltas arrive. */
type OpenBlock = Extract<Content, { type: 'text' | 'reasoning' }>;

/** Gathers stream parts back into what `doGenerate` returns. */
class StreamCollector {
  parts = 0;
  private readonly content: Content[] = [];
  private readonly open = new Map<string, OpenBlock>();
  private warnings: GenerateResult['warnings'] = [];
  private metadata: NonNullable<GenerateResult['response']> = {};
  private finish: Extract<StreamPart, { type: 'finish' }> | undefined;

  add(part: StreamPart): void {
    this.parts += 1;
    switch (part.type) {
      case 'stream-start':
        this.warnings = part.warnings;
        return;
      case 'response-metadata': {
        const { type: _type, ...metadata } = part;
        this.metadata = { ...this.metadata, ...definedOnly(metadata) };
        return;
      }
      case 'text-start':
      case 'reasoning-start': {
        const block: OpenBlock = { type: part.type === 'text-start' ? 'text' : 'reasoning', text: '' };
        this.addMetadata(block, part.providerMetadata);
        this.open.set(`${block.type}:${part.id}`, block);
        this.content.push(block);
        return;
      }
      case 'text-delta':
      case 'reasoning-delta': {
        const block = this.blockFor(part.type === 'text-delta' ? 'text' : 'reasoning', part.id);
        block.text += part.delta;
        this.addMetadata(block, part.providerMetadata);
        return;
      }
      case 'text-end':
      case 'reasoning-end': {
        const key = `${part.type === 'text-end' ? 'text' : 'reasoning'}:${part.id}`;
        const block = this.open.get(key);
        if (block !== undefined) this.addMetadata(block, part.providerMetadata);
        this.open.delete(key);
        return;
      }
      // The finished tool call follows as its own part; the input deltas only preview it.
      case 'tool-input-start':
      case 'tool-input-delta':
      case 'tool-input-end':
      case 'raw':
        return;
      case 'finish':
        this.finish = part;
        return;
      case 'error':
        throw providerStreamError(part.error);
      default:
        // tool-call, tool-result, tool-approval-request, file, source: already content-shaped.
        this.content.push(part);
    }
  }

  result(stream: StreamResult): GenerateResult {
    const finish = this.finish;
    // Providers close every answer with a finish part carrying their stop reason. None, or
    // the placeholder a provider emits when the stream closed before saying why it stopped
    // (OpenAI's flush), means the connection ended mid-answer.
    if (finish === undefined || (finish.finishReason.raw === undefined && finish.finishReason.unified === 'other')) throw streamCut(this.parts);
    return {
      content: this.content.filter((entry) => !(entry.type === 'text' && entry.text === '' && entry.providerMetadata === undefined)),
      finishReason: finish.finishReason,
      usage: finish.usage,
      ...(finish.providerMetadata === undefined ? {} : { providerMetadata: finish.providerMetadata }),
      ...(stream.request === undefined ? {} : { request: stream.request }),
      response: { ...this.metadata, ...(stream.response?.headers === undefined ? {} : { headers: stream.response.headers }) },
      warnings: this.warnings,
    };
  }

  /** A delta for a block that never started: start it here rather than lose the text. */
  private blockFor(type: OpenBlock['type'], id: string): OpenBlock {
    const existing = this.open.get(`${type}:${id}`);
    if (existing !== undefined) return existing;
    const block: OpenBlock = { type, text: '' };
    this.open.set(`${type}:${id}`, block);
    this.content.push(block);
    return block;
  }

  /** Merged per provider: Anthropic sends a thinking block's signature on a later delta. */
  private addMetadata(block: OpenBlock, metadata: ProviderMetadata | undefined): void {
    if (metadata === undefined) return;
    const merged: ProviderMetadata = { ...block.providerMetadata };
    for (const [provider, values] of Object.entries(metadata)) merged[provider] = { ...merged[provider], ...values };
    block.providerMetadata = merged;
  }
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as Partial<T>;
}

// What a provider's error event type means as an HTTP status, so that the error is retried
// (or not) and reported like the same failure answered before the stream began.
const STATUS_OF_ERROR_TYPE: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  server_error: 500,
  timeout_error: 504,
  overloaded_error: 529,
};

/**
 * The error a provider reported inside a stream. Its own parse failures are errors already;
 * an error event from the server becomes the APICallError it would have been as a status.
 */
function providerStreamError(error: unknown): Error {
  if (error instanceof Error) return error;
  const fields = typeof error === 'object' && error !== null ? (error as Record<string, unknown>) : {};
  const type = typeof fields['type'] === 'string' ? fields['type'] : undefined;
  const message = typeof fields['message'] === 'string' ? fields['message'] : JSON.stringify(error);
  // An unknown failure after a 200 is the server's: treated as a 500, retried within bounds.
  const status = (type === undefined ? undefined : STATUS_OF_ERROR_TYPE[type]) ?? 500;
  return new APICallError({
    message: `error event in the stream${type === undefined ? '' : ` (${type})`}: ${message}`,
    url: '',
    requestBodyValues: undefined,
    statusCode: status,
    responseBody: JSON.stringify(error),
    isRetryable: status === 429 || status >= 500,
  });
}
