import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sendAnthropicAnswer } from './fake-anthropic-wire.js';
import { defaultErrorBody } from './fake-error-replies.js';
import { describeRequest, readBody } from './fake-model-request.js';
import {
  estimateTokens,
  isObject,
  type FakeAnswer,
  type FakeModelRequest,
  type FakeModelScript,
  type FakeModelServer,
  type FakeProtocol,
  type FakeReply,
  type FakeReplyOptions,
  type FakeToolCall,
} from './fake-model-types.js';
import { sendOpenAiAnswer } from './fake-openai-wire.js';
import { anthropicBreakpointCount, FakePromptCache, MAX_BREAKPOINTS } from './fake-prompt-cache.js';
import { sendJson } from './fake-wire-writer.js';

export type {
  FakeModelRequest,
  FakeModelScript,
  FakeModelServer,
  FakeProtocol,
  FakeReply,
  FakeReplyOptions,
  FakeReportedUsage,
  FakeStatusReply,
  FakeToolCall,
  FakeUsage,
} from './fake-model-types.js';
export { overloaded, rateLimited, type RateLimitOptions, type RetryAfterHeader } from './fake-error-replies.js';

/**
 * A scripted model server on loopback speaking the real wire protocols: OpenAI chat
 * completions (`POST /v1/chat/completions`) and Anthropic messages (`POST /v1/messages`), each
 * as JSON or, with `stream: true`, as the API's SSE events. Production provider code runs
 * against it unchanged. It reports usage as a provider would (bytes ÷ 4, prompt caching
 * simulated: test/fakes/fake-prompt-cache.ts) unless a reply gives its own, and can answer
 * with the failures providers have: error statuses with their bodies and headers, slow answers,
 * connections cut mid-answer. Zero latency unless a reply asks for `delayMs`, so benchmarks
 * can use it too. Runtime dependencies: Node's own modules only.
 */

export interface FakeModelServerOptions {
  script: FakeModelScript;
  /** Simulate the providers' prompt caches in the reported usage; default true, as the providers do. */
  promptCaching?: boolean;
}

function waitUnlessDisconnected(milliseconds: number, response: ServerResponse): Promise<void> {
  if (milliseconds <= 0) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, milliseconds);
    response.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

function outputOf(reply: FakeReply): string {
  if ('toolCalls' in reply) return JSON.stringify(reply.toolCalls) + (reply.text ?? '');
  return 'text' in reply ? reply.text : '';
}

/** The usage to report: the script's if it gave one, otherwise the prompt split by the cache. */
function usageOf(
  reply: FakeReply,
  request: FakeModelRequest,
  cached: { cacheReadTokens: number; cacheWriteTokens: number },
): Pick<FakeAnswer, 'usage' | 'omitCacheDetails'> {
  if (reply.usage !== undefined) {
    const { inputTokens, outputTokens, cachedInputTokens, cacheWriteTokens = 0 } = reply.usage;
    const cacheReadTokens = cachedInputTokens ?? 0;
    return {
      usage: { inputTokens: inputTokens - cacheReadTokens - cacheWriteTokens, outputTokens, cacheReadTokens, cacheWriteTokens },
      omitCacheDetails: cachedInputTokens === undefined,
    };
  }
  const inputTokens = request.estimatedInputTokens - cached.cacheReadTokens - cached.cacheWriteTokens;
  return { usage: { inputTokens, outputTokens: estimateTokens(outputOf(reply)), ...cached }, omitCacheDetails: false };
}

const ROUTES: Record<string, FakeProtocol> = {
  '/v1/chat/completions': 'openai-chat',
  '/v1/messages': 'anthropic-messages',
};

export async function startFakeModelServer(options: FakeModelServerOptions): Promise<FakeModelServer> {
  const requests: FakeModelRequest[] = [];
  const cache = new FakePromptCache();
  const promptCaching = options.promptCaching ?? true;

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    const protocol = ROUTES[path];
    if (request.method !== 'POST' || protocol === undefined) {
      sendJson(response, 404, { error: { message: `no route for ${request.method} ${path}` } });
      return;
    }
    const rawBody = await readBody(request);
    let body: unknown;
    try {
      body = JSON.parse(rawBody);
    } catch {
      body = undefined;
    }
    if (!isObject(body)) {
      sendJson(response, 400, defaultErrorBody(protocol, 400));
      return;
    }
    const described = describeRequest(protocol, path, request, rawBody, body);
    const callIndex = requests.push(described) - 1;
    const breakpoints = protocol === 'anthropic-messages' ? anthropicBreakpointCount(body) : 0;
    if (breakpoints > MAX_BREAKPOINTS) {
      const message = `A maximum of ${MAX_BREAKPOINTS} blocks with cache_control may be provided. Found ${breakpoints}.`;
      sendJson(response, 400, { type: 'error', error: { type: 'invalid_request_error', message } });
      return;
    }
    const reply = await options.script(described, callIndex);
    await waitUnlessDisconnected(reply.delayMs ?? 0, response);
    if (response.destroyed || request.socket.destroyed) return;
    if ('status' in reply) {
      sendJson(response, reply.status, reply.body ?? defaultErrorBody(protocol, reply.status, described.model), reply.headers, reply.cutAfterEvents);
      return;
    }
    // The provider has read the prompt by now: the cache answers, and records its writes, even
    // when the script gives the usage.
    const cached = promptCaching ? cache.observe(described, described.estimatedInputTokens) : { cacheReadTokens: 0, cacheWriteTokens: 0 };
    const answer: FakeAnswer = {
      response,
      request: described,
      toolCalls: 'toolCalls' in reply ? reply.toolCalls : [],
      text: 'text' in reply && typeof reply.text === 'string' ? reply.text : '',
      ...usageOf(reply, described, cached),
      callIndex,
      cutAfterEvents: reply.cutAfterEvents,
    };
    described.reportedUsage = answer.usage;
    if (protocol === 'openai-chat') sendOpenAiAnswer(answer);
    else sendAnthropicAnswer(answer);
  };

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) sendJson(response, 500, { error: { message: `fake script failed: ${String(error)}` } });
      else response.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

// Script builders. They decide from the conversation in the request, not from the call
// index, so one script serves retries, parallel runs and follow-up turns alike.

/** Calls the tools of `steps[n]` in the n-th round trip of a turn, then answers `finalText`. */
export function scriptedToolCalls(steps: ReadonlyArray<FakeToolCall | FakeToolCall[]>, finalText: string): FakeModelScript {
  return (request) => {
    const step = steps[request.toolRounds];
    if (step === undefined) return { text: finalText };
    return { toolCalls: Array.isArray(step) ? step : [step] };
  };
}

/** A model that never stops calling the same tool: for budget tests. */
export function endlessToolLoop(toolName: string, args: object, options: FakeReplyOptions = {}): FakeModelScript {
  return () => ({ toolCalls: [{ name: toolName, arguments: args }], ...options });
}

/** Always answers with this text, calling no tool. */
export function replyWithText(text: string, options: FakeReplyOptions = {}): FakeModelScript {
  return () => ({ text, ...options });
}

/** Always fails with this HTTP status (and optional body/headers). */
export function failWith(status: number, extra: { body?: object; headers?: Record<string, string> } = {}): FakeModelScript {
  return () => ({ status, ...extra });
}

/** Reply n answers call n; the last reply repeats. For retry scenarios such as "500, then fine". */
export function replySequence(...replies: FakeReply[]): FakeModelScript {
  if (replies.length === 0) throw new Error('replySequence needs at least one reply');
  return (_request, callIndex) => replies[Math.min(callIndex, replies.length - 1)]!;
}
