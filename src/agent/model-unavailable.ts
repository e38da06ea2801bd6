import type { APICallError } from 'ai';

// How providers say a model id does not answer: Anthropic's 404 `not_found_error`
// ("model: claude-…"), OpenAI's `model_not_found` and "The model `x` does not exist or you
// do not have access to it", and the wording of a retired or deprecated model. Retrying
// never changes such an answer, so it is told apart from other 4xx errors.
const UNAVAILABLE_CODES = new Set(['model_not_found', 'model_not_available', 'model_deprecated']);
const UNAVAILABLE_WORDING =
  /\bmodel\b.{0,120}?(does not exist|not found|not exist|has been deprecated|is deprecated|deprecated|retired|decommissioned|no longer (available|supported)|do not have access|not have access|no access)/i;
const NAMED_IN_MESSAGE = /\bmodel[`'" :]+([^`'"\s,]+)/i;

interface ProviderError {
  type?: unknown;
  code?: unknown;
  message?: unknown;
}

function providerError(body: string | undefined): ProviderError {
  if (body === undefined) return {};
  try {
    const parsed = JSON.parse(body) as { error?: unknown } | null;
    const error = parsed?.error;
    if (typeof error === 'object' && error !== null) return error;
    if (typeof error === 'string') return { message: error };
  } catch {
    // Not JSON (a proxy's HTML page): only the wording of the SDK's message is left.
  }
  return {};
}

/**
 * The model id and the provider's words when a provider answered that the requested model
 * does not exist, is retired or is not open to the key; null for any other failure.
 */
export function modelUnavailable(error: APICallError): { model: string; detail: string } | null {
  const status = error.statusCode;
  if (status !== 400 && status !== 404 && status !== 410) return null;
  const body = providerError(error.responseBody);
  const message = typeof body.message === 'string' ? body.message : error.message;
  const byCode = typeof body.code === 'string' && UNAVAILABLE_CODES.has(body.code);
  const byType = body.type === 'not_found_error' && /\bmodel\b/i.test(message);
  if (!byCode && !byType && !UNAVAILABLE_WORDING.test(message)) return null;
  const requested = (error.requestBodyValues as { model?: unknown } | undefined)?.model;
  const model = typeof requested === 'string' ? requested : (NAMED_IN_MESSAGE.exec(message)?.[1] ?? 'the configured model');
  return { model, detail: message };
}
