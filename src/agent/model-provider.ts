import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModel } from 'ai';
import { DEFAULT_MODEL } from '../config/default-model.js';
import { DocwrightError } from '../core/errors.js';

export const MODEL_PROVIDERS = ['anthropic', 'openai', 'openai-compatible'] as const;
export type ModelProviderName = (typeof MODEL_PROVIDERS)[number];

/** Structurally the same as the `models` part of the loaded configuration, minus the default model. */
export interface ModelCredentials {
  anthropicApiKey?: string;
  openaiApiKey?: string;
  openaiCompatibleBaseUrl?: string;
  openaiCompatibleApiKey?: string;
  anthropicBaseUrl?: string;
  openaiBaseUrl?: string;
}

export interface ParsedModelId {
  provider: ModelProviderName;
  model: string;
}

function isProviderName(value: string): value is ModelProviderName {
  return (MODEL_PROVIDERS as readonly string[]).includes(value);
}

/**
 * Splits `provider:model` at the first colon only, because local model names carry
 * their own colons (Ollama's `llama3.1:8b`).
 */
export function parseModelId(id: string): ParsedModelId {
  const separator = id.indexOf(':');
  const provider = separator === -1 ? '' : id.slice(0, separator);
  const model = separator === -1 ? '' : id.slice(separator + 1);
  if (!isProviderName(provider) || model.length === 0 || /\s/.test(model)) {
    throw new DocwrightError(
      'invalid_model',
      `Model id "${id}" is not valid: use provider:model with provider one of ${MODEL_PROVIDERS.join(', ')} (for example ${DEFAULT_MODEL}).`,
      { status: 400 },
    );
  }
  return { provider, model };
}

const REQUIRED_VARIABLE: Record<ModelProviderName, string> = {
  anthropic: 'ANTHROPIC_API_KEY',
  openai: 'OPENAI_API_KEY',
  'openai-compatible': 'DOCWRIGHT_OPENAI_COMPATIBLE_BASE_URL',
};

function hasValue(value: string | undefined): value is string {
  return value !== undefined && value.trim() !== '';
}

function isConfigured(provider: ModelProviderName, credentials: ModelCredentials): boolean {
  switch (provider) {
    case 'anthropic':
      return hasValue(credentials.anthropicApiKey);
    case 'openai':
      return hasValue(credentials.openaiApiKey);
    case 'openai-compatible':
      return hasValue(credentials.openaiCompatibleBaseUrl);
  }
}

function notConfiguredMessage(modelId: string, provider: ModelProviderName): string {
  return `Model "${modelId}" cannot run: set ${REQUIRED_VARIABLE[provider]} to use the ${provider} provider.`;
}

/**
 * The warning `serve` prints at start-up when the default model could not run, or null.
 * Start-up does not fail on it: the analytics half of the service works without a model.
 */
export function missingModelCredentials(modelId: string, credentials: ModelCredentials): string | null {
  let parsed: ParsedModelId;
  try {
    parsed = parseModelId(modelId);
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  return isConfigured(parsed.provider, credentials) ? null : notConfiguredMessage(modelId, parsed.provider);
}

/**
 * The providers' API keys travel in headers (`x-api-key` for Anthropic) that Node's fetch
 * keeps when it follows a redirect to another host. Model APIs do not redirect, so a
 * redirect is refused outright rather than followed with the key.
 */
const fetchWithoutRedirects: typeof fetch = (input, init) => fetch(input, { ...init, redirect: 'error' });

function withoutTrailingSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

/**
 * Builds the AI SDK model for a `provider:model` id. Keys are always passed explicitly,
 * so the provider packages never fall back to reading process.env on their own.
 */
export function resolveLanguageModel(modelId: string, credentials: ModelCredentials): LanguageModel {
  const { provider, model } = parseModelId(modelId);
  if (!isConfigured(provider, credentials)) {
    throw new DocwrightError('model_not_configured', notConfiguredMessage(modelId, provider), { status: 400 });
  }
  switch (provider) {
    case 'anthropic':
      return createAnthropic({
        fetch: fetchWithoutRedirects,
        apiKey: credentials.anthropicApiKey,
        ...(hasValue(credentials.anthropicBaseUrl) ? { baseURL: withoutTrailingSlash(credentials.anthropicBaseUrl) } : {}),
      })(model);
    case 'openai':
      // Chat completions rather than the Responses API: it is what gateways and proxies
      // in front of OpenAI speak most widely, and it keeps no conversation state server-side.
      return createOpenAI({
        fetch: fetchWithoutRedirects,
        apiKey: credentials.openaiApiKey,
        ...(hasValue(credentials.openaiBaseUrl) ? { baseURL: withoutTrailingSlash(credentials.openaiBaseUrl) } : {}),
      }).chat(model);
    case 'openai-compatible':
      return createOpenAICompatible({
        name: 'openai-compatible',
        fetch: fetchWithoutRedirects,
        baseURL: withoutTrailingSlash(credentials.openaiCompatibleBaseUrl ?? ''),
        // Local servers (Ollama, llama.cpp) need no key; send none rather than an empty bearer.
        ...(hasValue(credentials.openaiCompatibleApiKey) ? { apiKey: credentials.openaiCompatibleApiKey } : {}),
        includeUsage: true,
      }).chatModel(model);
  }
}
