import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A scripted model server on loopback speaking the real wire protocols: OpenAI chat
 * completions (`POST /v1/chat/completions`, JSON and `stream: true` SSE) and Anthropic
 * messages (`POST /v1/messages`, JSON). Production provider code runs against it unchanged.
 * Zero latency unless a reply asks for `delayMs`, so benchmarks can use it too.
 */

export interface FakeToolCall {
  name: string;
  arguments: object;
}

interface FakeReplyOptions {
  /** Wait this long before answering (ends early if the client disconnects). */
  delayMs?: number;
  /**
   * Reported token usage; by default about one token per four characters. `cachedInputTokens`
   * (part of `inputTokens`) is sent the way each API does: OpenAI's
   * `prompt_tokens_details.cached_tokens`, Anthropic's `cache_read_input_tokens` (which its
   * `input_tokens` does not include).
   */
  usage?: FakeUsage;
}

export interface FakeUsage {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens?: number;
}

export type FakeReply =
  | ({ toolCalls: FakeToolCall[]; text?: string } & FakeReplyOptions)
  | ({ text: string } & FakeReplyOptions)
  | ({ status: number; body?: object; headers?: Record<string, string> } & FakeReplyOptions);

export type FakeProtocol = 'openai-chat' | 'anthropic-messages';

/** One request as received, plus the facts scripts usually need, read out of the body. */
export interface FakeModelRequest {
  protocol: FakeProtocol;
  path: string;
  headers: Record<string, string>;
  /** The parsed JSON body exactly as the client sent it. */
  body: Record<string, unknown>;
  /** The body as text: search it to prove something never reached the model. */
  rawBody: string;
  model: string;
  stream: boolean;
  /** Names of the tools offered in this request. */
  toolNames: string[];
  /** Assistant messages in this request that called tools: the current turn's round trips. */
  toolRounds: number;
  /** Text of every tool result in the conversation, oldest first. */
  toolResults: string[];
  /** Text of the last user message. */
  lastUserText: string;
  /** The system prompt: OpenAI's system messages, or Anthropic's `system` field. */
  systemText: string;
}

export type FakeModelScript = (request: FakeModelRequest, callIndex: number) => FakeReply | Promise<FakeReply>;

export interface FakeModelServer {
  /** Base URL ending in `/v1`; pass it as the provider's base URL. */
  url: string;
  /** Every request received, in order (failed replies included). */
  requests: FakeModelRequest[];
  close(): Promise<void>;
}

type JsonObject = Record<string, unknown>;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/** Text out of either protocol's content: a string, or an array of `{type: 'text', text}` blocks. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  return asArray(content)
    .map((part) => (isObject(part) && typeof part['text'] === 'string' ? part['text'] : ''))
    .join('');
}

function describeRequest(protocol: FakeProtocol, path: string, request: IncomingMessage, rawBody: string, body: JsonObject): FakeModelRequest {
  const messages = asArray(body['messages']).filter(isObject);
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  const toolNames = asArray(body['tools'])
    .filter(isObject)
    .map((tool) => (protocol === 'openai-chat' && isObject(tool['function']) ? tool['function']['name'] : tool['name']))
    .filter((name): name is string => typeof name === 'string');
  const toolResults: string[] = [];
  let toolRounds = 0;
  let lastUserText = '';
  const systemParts = protocol === 'anthropic-messages' ? [textOf(body['system'])] : [];
  for (const message of messages) {
    if (message['role'] === 'system' || message['role'] === 'developer') systemParts.push(textOf(message['content']));
    const blocks = asArray(message['content']).filter(isObject);
    if (message['role'] === 'tool') toolResults.push(textOf(message['content']));
    if (message['role'] === 'assistant') {
      const callsTools = protocol === 'openai-chat' ? asArray(message['tool_calls']).length > 0 : blocks.some((block) => block['type'] === 'tool_use');
      if (callsTools) toolRounds += 1;
    }
    if (message['role'] === 'user') {
      const results = blocks.filter((block) => block['type'] === 'tool_result');
      for (const result of results) toolResults.push(textOf(result['content']));
      if (results.length === 0) lastUserText = textOf(message['content']);
    }
  }
  return {
    protocol,
    path,
    headers,
    body,
    rawBody,
    model: typeof body['model'] === 'string' ? body['model'] : '',
    stream: body['stream'] === true,
    toolNames,
    toolRounds,
    toolResults,
    lastUserText,
    systemText: systemParts.join('\n'),
  };
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
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

function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}

function estimateTokens(text: string): number {
  return Math.max(1, Math.ceil(text.length / 4));
}

function usageOf(reply: FakeReply, request: FakeModelRequest): FakeUsage {
  if (reply.usage !== undefined) return reply.usage;
  const output = 'toolCalls' in reply ? JSON.stringify(reply.toolCalls) + (reply.text ?? '') : 'text' in reply ? reply.text : '';
  return { inputTokens: estimateTokens(request.rawBody), outputTokens: estimateTokens(output) };
}

function defaultErrorBody(protocol: FakeProtocol, status: number): object {
  const message = `fake model server error ${status}`;
  const type = status === 401 ? 'authentication_error' : status === 429 ? 'rate_limit_error' : status >= 500 ? 'api_error' : 'invalid_request_error';
  return protocol === 'openai-chat' ? { error: { message, type, param: null, code: null } } : { type: 'error', error: { type, message } };
}

function openAiToolCalls(toolCalls: FakeToolCall[], callIndex: number): JsonObject[] {
  return toolCalls.map((call, index) => ({
    id: `call_${callIndex}_${index}`,
    type: 'function',
    function: { name: call.name, arguments: JSON.stringify(call.arguments) },
  }));
}

function sendOpenAiReply(response: ServerResponse, request: FakeModelRequest, reply: FakeReply, callIndex: number): void {
  const toolCalls = 'toolCalls' in reply ? reply.toolCalls : [];
  const text = 'text' in reply && typeof reply.text === 'string' ? reply.text : null;
  const finishReason = toolCalls.length > 0 ? 'tool_calls' : 'stop';
  const { inputTokens, outputTokens, cachedInputTokens } = usageOf(reply, request);
  const usage = {
    prompt_tokens: inputTokens,
    completion_tokens: outputTokens,
    total_tokens: inputTokens + outputTokens,
    ...(cachedInputTokens === undefined ? {} : { prompt_tokens_details: { cached_tokens: cachedInputTokens } }),
  };
  const base = { id: `chatcmpl-fake-${callIndex}`, created: Math.floor(Date.now() / 1000), model: request.model };
  if (!request.stream) {
    const message: JsonObject = { role: 'assistant', content: text, refusal: null };
    if (toolCalls.length > 0) message['tool_calls'] = openAiToolCalls(toolCalls, callIndex);
    sendJson(response, 200, {
      ...base,
      object: 'chat.completion',
      choices: [{ index: 0, message, finish_reason: finishReason, logprobs: null }],
      usage,
    });
    return;
  }
  const chunk = (choices: unknown[], extra: JsonObject = {}): string =>
    `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices, ...extra })}\n\n`;
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  response.write(chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]));
  if (text !== null && text !== '') response.write(chunk([{ index: 0, delta: { content: text }, finish_reason: null }]));
  openAiToolCalls(toolCalls, callIndex).forEach((call, index) => {
    response.write(chunk([{ index: 0, delta: { tool_calls: [{ index, ...call }] }, finish_reason: null }]));
  });
  response.write(chunk([{ index: 0, delta: {}, finish_reason: finishReason }]));
  const streamOptions = request.body['stream_options'];
  if (isObject(streamOptions) && streamOptions['include_usage'] === true) response.write(chunk([], { usage }));
  response.end('data: [DONE]\n\n');
}

function sendAnthropicReply(response: ServerResponse, request: FakeModelRequest, reply: FakeReply, callIndex: number): void {
  if (request.stream) {
    sendJson(response, 400, defaultErrorBody('anthropic-messages', 400));
    return;
  }
  const toolCalls = 'toolCalls' in reply ? reply.toolCalls : [];
  const text = 'text' in reply && typeof reply.text === 'string' ? reply.text : '';
  const content: JsonObject[] = [];
  if (text !== '') content.push({ type: 'text', text });
  toolCalls.forEach((call, index) => {
    content.push({ type: 'tool_use', id: `toolu_${callIndex}_${index}`, name: call.name, input: call.arguments });
  });
  const { inputTokens, outputTokens, cachedInputTokens = 0 } = usageOf(reply, request);
  sendJson(response, 200, {
    id: `msg_fake_${callIndex}`,
    type: 'message',
    role: 'assistant',
    model: request.model,
    content,
    stop_reason: toolCalls.length > 0 ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: inputTokens - cachedInputTokens, output_tokens: outputTokens, cache_read_input_tokens: cachedInputTokens },
  });
}

const ROUTES: Record<string, FakeProtocol> = {
  '/v1/chat/completions': 'openai-chat',
  '/v1/messages': 'anthropic-messages',
};

export async function startFakeModelServer(options: { script: FakeModelScript }): Promise<FakeModelServer> {
  const requests: FakeModelRequest[] = [];

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
    const reply = await options.script(described, callIndex);
    await waitUnlessDisconnected(reply.delayMs ?? 0, response);
    if (response.destroyed || request.socket.destroyed) return;
    if ('status' in reply) {
      sendJson(response, reply.status, reply.body ?? defaultErrorBody(protocol, reply.status), reply.headers);
    } else if (protocol === 'openai-chat') {
      sendOpenAiReply(response, described, reply, callIndex);
    } else {
      sendAnthropicReply(response, described, reply, callIndex);
    }
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
