import { createHash } from 'node:crypto';
import { asArray, isObject, type FakeModelRequest, type JsonObject } from './fake-model-types.js';

/**
 * Prompt caching as the providers document it, so that a test or a benchmark sees the cache
 * reads and writes a real provider would report for the same requests (tokens = bytes ÷ 4).
 *
 * Anthropic (explicit): the prompt is tools → system → messages, cut into blocks (each tool,
 * system block and message content block). A block carrying `cache_control` is a breakpoint
 * (at most 4). A breakpoint's prefix of at least 1,024 tokens is written to the cache; a later
 * request reads the longest written prefix that ends at one of its breakpoints or at most 19
 * blocks before one (Anthropic's lookback of about 20 blocks), writes the rest up to its last
 * breakpoint, and what follows is plain input. Prefixes compare as the blocks' JSON, key order
 * kept, without the `cache_control` markers, and include the model.
 *
 * OpenAI (automatic): the request's tools, then its messages in order, serialized; the longest
 * prefix shared with any earlier request, in 128-token steps, counts as cached once it reaches
 * 1,024 tokens.
 *
 * Simplified: nothing expires (tests run within the 5-minute lifetime), tool_choice and
 * thinking settings do not invalidate, and the 1,024-token minimum applies to every model.
 */

export const MIN_CACHEABLE_TOKENS = 1024;
export const MAX_BREAKPOINTS = 4;
const LOOKBACK_BLOCKS = 20;
const OPENAI_STEP_TOKENS = 128;

export interface CacheOutcome {
  cacheReadTokens: number;
  cacheWriteTokens: number;
}

interface Block {
  json: string;
  breakpoint: boolean;
}

function withoutCacheControl(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutCacheControl);
  if (!isObject(value)) return value;
  const copy: JsonObject = {};
  for (const [key, entry] of Object.entries(value)) if (key !== 'cache_control') copy[key] = withoutCacheControl(entry);
  return copy;
}

function block(value: unknown, wrap: (clean: unknown) => unknown = (clean) => clean): Block {
  return { json: JSON.stringify(wrap(withoutCacheControl(value))), breakpoint: isObject(value) && isObject(value['cache_control']) };
}

function anthropicBlocks(body: JsonObject): Block[] {
  const blocks = asArray(body['tools']).map((tool) => block(tool, (clean) => ({ tool: clean })));
  const system = body['system'];
  const systemBlocks = typeof system === 'string' ? [{ type: 'text', text: system }] : asArray(system);
  blocks.push(...systemBlocks.map((part) => block(part, (clean) => ({ system: clean }))));
  for (const message of asArray(body['messages']).filter(isObject)) {
    const content = typeof message['content'] === 'string' ? [{ type: 'text', text: message['content'] }] : asArray(message['content']);
    blocks.push(...content.map((part) => block(part, (clean) => ({ role: message['role'], content: clean }))));
  }
  return blocks;
}

function chainHash(previous: string, next: string): string {
  return createHash('sha256').update(previous).update('\n').update(next).digest('hex');
}

function tokensOf(bytes: number): number {
  return Math.ceil(bytes / 4);
}

export class FakePromptCache {
  private readonly anthropicWritten = new Set<string>();
  private readonly openAiSeen = new Set<string>();

  /** The cache's answer for a request with a prompt of `promptTokens`, and its writes recorded. */
  observe(request: FakeModelRequest, promptTokens: number): CacheOutcome {
    const outcome = request.protocol === 'anthropic-messages' ? this.anthropic(request) : this.openAi(request);
    const cacheReadTokens = Math.min(outcome.cacheReadTokens, promptTokens);
    return { cacheReadTokens, cacheWriteTokens: Math.min(outcome.cacheWriteTokens, promptTokens - cacheReadTokens) };
  }

  private anthropic(request: FakeModelRequest): CacheOutcome {
    const blocks = anthropicBlocks(request.body);
    const hashes: string[] = [];
    const tokens: number[] = [];
    let hash = chainHash('anthropic', request.model);
    let bytes = 0;
    for (const { json } of blocks) {
      hash = chainHash(hash, json);
      bytes += Buffer.byteLength(json, 'utf8') + 1;
      hashes.push(hash);
      tokens.push(tokensOf(bytes));
    }
    const breakpoints = blocks.flatMap((entry, index) => (entry.breakpoint ? [index] : [])).slice(0, MAX_BREAKPOINTS);
    let read = 0;
    for (const breakpoint of breakpoints) {
      for (let index = breakpoint; index >= 0 && index > breakpoint - LOOKBACK_BLOCKS; index -= 1) {
        if (this.anthropicWritten.has(hashes[index]!)) {
          read = Math.max(read, tokens[index]!);
          break;
        }
      }
    }
    let written = 0;
    for (const breakpoint of breakpoints) {
      if (tokens[breakpoint]! < MIN_CACHEABLE_TOKENS) continue;
      this.anthropicWritten.add(hashes[breakpoint]!);
      written = Math.max(written, tokens[breakpoint]!);
    }
    return { cacheReadTokens: read, cacheWriteTokens: Math.max(0, written - read) };
  }

  private openAi(request: FakeModelRequest): CacheOutcome {
    const parts = [request.model, JSON.stringify(request.body['tools'] ?? []), ...asArray(request.body['messages']).map((message) => JSON.stringify(message))];
    const serialized = Buffer.from(parts.join('\n'), 'utf8');
    const step = OPENAI_STEP_TOKENS * 4;
    let hash = 'openai';
    let matchedSteps = 0;
    let stillMatching = true;
    for (let offset = 0; offset + step <= serialized.length; offset += step) {
      hash = createHash('sha256')
        .update(hash)
        .update(serialized.subarray(offset, offset + step))
        .digest('hex');
      if (stillMatching && this.openAiSeen.has(hash)) matchedSteps += 1;
      else stillMatching = false;
      this.openAiSeen.add(hash);
    }
    const cached = matchedSteps * OPENAI_STEP_TOKENS;
    return { cacheReadTokens: cached >= MIN_CACHEABLE_TOKENS ? cached : 0, cacheWriteTokens: 0 };
  }
}

/** Blocks marked `cache_control` in an Anthropic request; the API refuses more than 4. */
export function anthropicBreakpointCount(body: JsonObject): number {
  return anthropicBlocks(body).filter((entry) => entry.breakpoint).length;
}
