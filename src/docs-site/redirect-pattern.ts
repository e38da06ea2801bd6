/**
 * One Mintlify redirect source, compiled into segments and matched by hand: a source comes
 * from the repository, so no RegExp is built from it, and matching is one pass over the
 * path's segments.
 *
 * Syntax, from https://www.mintlify.com/docs/create/redirects:
 * - `/beta/:slug*` matches `/beta` and anything below it; `:slug*` in the destination is
 *   replaced by the captured segments joined with `/` (`:slug+` needs at least one).
 * - `:param` matches exactly one segment.
 * - `/articles/concepts-*` is a partial wildcard: one segment starting with `concepts-`;
 *   a `*` in the destination (`/new/article-*`) is replaced by the captured rest.
 * - Sources cannot carry `#anchor` or `?query`.
 * Trailing slashes and empty segments are ignored, as the site serves `/a/` as `/a`.
 */

export type SourceSegment = { kind: 'literal'; text: string } | { kind: 'param'; name: string } | { kind: 'prefix'; prefix: string };

export interface RestWildcard {
  name: string;
  /** 0 for `:name*`, 1 for `:name+`. */
  min: 0 | 1;
}

export interface CompiledSource {
  /** Segments before the multi-segment wildcard (all segments when there is none). */
  head: SourceSegment[];
  rest?: RestWildcard;
  /** Segments after the multi-segment wildcard. */
  tail: SourceSegment[];
}

export type DestinationPart = { kind: 'text'; text: string } | { kind: 'param'; name: string } | { kind: 'star'; index: number };

export interface Captures {
  params: Map<string, string>;
  stars: string[];
}

/** Site paths as segments: leading, trailing and doubled slashes carry no meaning. */
export function pathSegments(sitePath: string): string[] {
  return sitePath.split('/').filter((segment) => segment !== '');
}

/**
 * Compiles a source, or returns a reason it is not supported. Two multi-segment wildcards
 * (`:a*` and `:b*` in one source) are refused: matching them needs backtracking, and Mintlify's docs never
 * show one.
 */
export function compileSource(source: string): CompiledSource | { unsupported: string } {
  const head: SourceSegment[] = [];
  const tail: SourceSegment[] = [];
  let rest: RestWildcard | undefined;
  for (const segment of pathSegments(source)) {
    if (segment.length > 1 && segment.startsWith(':') && (segment.endsWith('*') || segment.endsWith('+'))) {
      if (rest !== undefined) return { unsupported: 'it has more than one multi-segment wildcard' };
      rest = { name: segment.slice(1, -1), min: segment.endsWith('+') ? 1 : 0 };
      continue;
    }
    (rest === undefined ? head : tail).push(compileSegment(segment));
  }
  return rest === undefined ? { head, tail } : { head, rest, tail };
}

function compileSegment(segment: string): SourceSegment {
  if (segment.length > 1 && segment.startsWith(':')) return { kind: 'param', name: segment.slice(1) };
  if (segment.endsWith('*')) return { kind: 'prefix', prefix: segment.slice(0, -1) };
  return { kind: 'literal', text: segment };
}

/** True when the source has no parameter or wildcard, so a Map lookup finds it. */
export function isExact(compiled: CompiledSource): boolean {
  return compiled.rest === undefined && compiled.head.every((segment) => segment.kind === 'literal');
}

/**
 * Matches path segments against a compiled source: the head from the front, the tail from
 * the back, the multi-segment wildcard takes what is between. Linear in the path length.
 */
export function matchSource(compiled: CompiledSource, segments: readonly string[]): Captures | undefined {
  const { head, rest, tail } = compiled;
  const fixed = head.length + tail.length;
  if (rest === undefined ? segments.length !== fixed : segments.length < fixed + rest.min) return undefined;
  const captures: Captures = { params: new Map(), stars: [] };
  for (let index = 0; index < head.length; index += 1) {
    if (!matchSegment(head[index]!, segments[index]!, captures)) return undefined;
  }
  const tailStart = segments.length - tail.length;
  if (rest !== undefined) captures.params.set(rest.name, segments.slice(head.length, tailStart).join('/'));
  for (let index = 0; index < tail.length; index += 1) {
    if (!matchSegment(tail[index]!, segments[tailStart + index]!, captures)) return undefined;
  }
  return captures;
}

function matchSegment(pattern: SourceSegment, segment: string, captures: Captures): boolean {
  switch (pattern.kind) {
    case 'literal':
      return pattern.text === segment;
    case 'param':
      // The first capture of a repeated name wins, as the destination can use only one.
      if (!captures.params.has(pattern.name)) captures.params.set(pattern.name, segment);
      return true;
    case 'prefix':
      if (!segment.startsWith(pattern.prefix)) return false;
      captures.stars.push(segment.slice(pattern.prefix.length));
      return true;
  }
}

/** Names the source captures, so the destination substitutes only those (`https://` or `:8080` stay as written). */
export function capturedNames(compiled: CompiledSource): { params: Set<string>; stars: number } {
  const params = new Set<string>();
  let stars = 0;
  for (const segment of [...compiled.head, ...compiled.tail]) {
    if (segment.kind === 'param') params.add(segment.name);
    else if (segment.kind === 'prefix') stars += 1;
  }
  if (compiled.rest !== undefined) params.add(compiled.rest.name);
  return { params, stars };
}

/**
 * Splits a destination into text and the places captures go: `:name` (with an optional
 * `*`, `+` or `?` after it, which belongs to the placeholder) for a name the source
 * captures, and the n-th `*` for the n-th partial wildcard. Everything else is text.
 */
export function compileDestination(destination: string, names: { params: Set<string>; stars: number }): DestinationPart[] {
  const parts: DestinationPart[] = [];
  let text = '';
  let starIndex = 0;
  let index = 0;
  while (index < destination.length) {
    const char = destination[index]!;
    if (char === ':') {
      let end = index + 1;
      while (end < destination.length && isNameChar(destination.charCodeAt(end))) end += 1;
      const name = destination.slice(index + 1, end);
      if (names.params.has(name)) {
        if (text !== '') parts.push({ kind: 'text', text });
        text = '';
        parts.push({ kind: 'param', name });
        const next = destination[end];
        index = next === '*' || next === '+' || next === '?' ? end + 1 : end;
        continue;
      }
    } else if (char === '*' && starIndex < names.stars) {
      if (text !== '') parts.push({ kind: 'text', text });
      text = '';
      parts.push({ kind: 'star', index: starIndex });
      starIndex += 1;
      index += 1;
      continue;
    }
    text += char;
    index += 1;
  }
  if (text !== '') parts.push({ kind: 'text', text });
  return parts;
}

/** Parameter names as path-to-regexp reads them: letters, digits and `_`. */
function isNameChar(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a) || code === 0x5f;
}

export function fillDestination(parts: readonly DestinationPart[], captures: Captures): string {
  let result = '';
  for (const part of parts) {
    if (part.kind === 'text') result += part.text;
    else if (part.kind === 'param') result += captures.params.get(part.name) ?? '';
    else result += captures.stars[part.index] ?? '';
  }
  return result;
}
