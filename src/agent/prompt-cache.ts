import type { ModelMessage, SystemModelMessage } from 'ai';

/**
 * Anthropic caches a request's prefix up to each block marked `cache_control` (at most
 * four marks, five minutes, a read costs a tenth of the input price). The other providers
 * ignore the option; OpenAI caches the longest prefix it saw on its own, which the same
 * stable order (system, tools, then messages only ever appended) gives it.
 */
const EPHEMERAL = { anthropic: { cacheControl: { type: 'ephemeral' } } } as const;

/** The system prompt as a message carrying the first mark: it caches the tools with it (they come first). */
export function cachedSystem(system: string): SystemModelMessage {
  return { role: 'system', content: system, providerOptions: EPHEMERAL };
}

/**
 * The step's messages with three more marks: the end of the pinned messages (earlier turns
 * and the prompt, never condensed, so that mark survives condensing); the message before
 * the last assistant message, where the previous step's request ended and wrote its
 * cache, so this request reads it exactly (Anthropic looks back only about twenty blocks
 * from a mark, and one step can add more tool results than that); and the last message,
 * which writes this request's prefix for the next step.
 */
export function withCacheMarks(messages: readonly ModelMessage[], pinned: number): ModelMessage[] {
  let lastAssistant = -1;
  for (let index = messages.length - 1; index >= 0 && lastAssistant === -1; index -= 1) if (messages[index]?.role === 'assistant') lastAssistant = index;
  const marked = new Set<number>([pinned - 1, lastAssistant - 1, messages.length - 1].filter((index) => index >= 0 && index < messages.length));
  return messages.map((message, index) =>
    marked.has(index) && message.role !== 'system' ? { ...message, providerOptions: { ...message.providerOptions, ...EPHEMERAL } } : message,
  );
}
