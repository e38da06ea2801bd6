import { parseDocument } from 'yaml';

/** Caps on a spec: the worker's time limit guards parsing; these bound what follows. */
export const MAX_SPEC_CHARS = 8 * 1024 * 1024;
const MAX_ALIAS_COUNT = 100;

export type SpecReading = { spec: Record<string, unknown> } | { problem: string };

/**
 * An OpenAPI document from its JSON or YAML text. JSON is read with JSON.parse (much
 * faster than a YAML parser on large generated specs); anything else as YAML, with the
 * alias expansion capped like frontmatter.ts caps it (an alias of an alias of … grows
 * exponentially). Deep nesting that overflows a parser's stack is a problem, not a crash.
 */
export function readSpec(specText: string): SpecReading {
  if (specText.length > MAX_SPEC_CHARS) {
    return { problem: `The OpenAPI spec is ${specText.length} characters, above the ${MAX_SPEC_CHARS} this check reads.` };
  }
  let value: unknown;
  try {
    value = looksLikeJson(specText) ? JSON.parse(specText) : parseYaml(specText);
  } catch (error) {
    const reason = error instanceof RangeError ? 'it nests too deeply' : firstLine((error as Error).message);
    return { problem: `The OpenAPI spec could not be parsed: ${reason}.` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { problem: 'The OpenAPI spec is not an object.' };
  const spec = value as Record<string, unknown>;
  if (typeof spec.openapi !== 'string' && typeof spec.swagger !== 'string') {
    return { problem: 'The OpenAPI spec has no "openapi" version field, so it is not an OpenAPI document.' };
  }
  for (const key of ['paths', 'webhooks']) {
    const section = spec[key];
    if (section !== undefined && (section === null || typeof section !== 'object' || Array.isArray(section))) {
      return { problem: `The OpenAPI spec's "${key}" is not an object.` };
    }
  }
  return { spec };
}

function looksLikeJson(text: string): boolean {
  for (const character of text) {
    if (character === '{') return true;
    if (character !== ' ' && character !== '\t' && character !== '\n' && character !== '\r' && character !== '\uFEFF') return false;
  }
  return false;
}

function parseYaml(text: string): unknown {
  const document = parseDocument(text);
  const error = document.errors[0];
  if (error !== undefined) throw new Error(error.message);
  return document.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
}

function firstLine(message: string): string {
  return message.split('\n')[0] ?? message;
}
