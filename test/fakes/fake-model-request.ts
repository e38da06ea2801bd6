import type { IncomingMessage } from 'node:http';
import { asArray, estimateTokens, isObject, type FakeModelRequest, type FakeProtocol, type JsonObject } from './fake-model-types.js';

/** Reading a request into the facts scripts decide by: tools offered, round trips, tool results, prompts. */

/** Text out of either protocol's content: a string, or an array of `{type: 'text', text}` blocks. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  return asArray(content)
    .map((part) => (isObject(part) && typeof part['text'] === 'string' ? part['text'] : ''))
    .join('');
}

export function describeRequest(protocol: FakeProtocol, path: string, request: IncomingMessage, rawBody: string, body: JsonObject): FakeModelRequest {
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
    estimatedInputTokens: estimateTokens(rawBody),
  };
}

export async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
