import {
  compileDestination,
  compileSource,
  capturedNames,
  fillDestination,
  isExact,
  matchSource,
  pathSegments,
  type CompiledSource,
  type DestinationPart,
} from './redirect-pattern.js';

/** A redirect source or destination longer than this is not a real path; it is skipped. */
export const MAX_REDIRECT_LENGTH = 2048;
/** Site paths longer than this are not looked up (no real page path is that long). */
const MAX_SITE_PATH_LENGTH = 8192;

interface PatternRule {
  order: number;
  source: CompiledSource;
  destination: DestinationPart[];
}

export interface UnsupportedRedirect {
  source: string;
  reason: string;
}

/**
 * The redirects of a Mintlify site (https://www.mintlify.com/docs/create/redirects) as a
 * lookup: exact sources in a Map, pattern sources indexed by their first segment when it
 * is a literal, so a table of 10,000 patterns tries only the rules that can match.
 */
export class RedirectTable {
  readonly size: number;
  /** Rules that were left out, with the reason (too long, two multi-segment wildcards). */
  readonly unsupported: readonly UnsupportedRedirect[];
  private readonly exact = new Map<string, string>();
  private readonly byFirstSegment = new Map<string, PatternRule[]>();
  /** Pattern rules whose first segment is itself a parameter or wildcard. */
  private readonly unanchored: PatternRule[] = [];

  constructor(rules: ReadonlyArray<{ source: string; destination: string }>) {
    const unsupported: UnsupportedRedirect[] = [];
    let size = 0;
    rules.forEach((rule, order) => {
      if (typeof rule.source !== 'string' || typeof rule.destination !== 'string') return;
      if (rule.source.length > MAX_REDIRECT_LENGTH || rule.destination.length > MAX_REDIRECT_LENGTH) {
        unsupported.push({ source: rule.source.slice(0, 100), reason: `it is longer than ${MAX_REDIRECT_LENGTH} characters` });
        return;
      }
      const compiled = compileSource(rule.source);
      if ('unsupported' in compiled) {
        unsupported.push({ source: rule.source, reason: compiled.unsupported });
        return;
      }
      size += 1;
      if (isExact(compiled)) {
        const key = compiled.head.map((segment) => (segment.kind === 'literal' ? segment.text : '')).join('/');
        // A later rule with the same source never fires: the first one listed wins.
        if (!this.exact.has(key)) this.exact.set(key, rule.destination);
        return;
      }
      const pattern: PatternRule = { order, source: compiled, destination: compileDestination(rule.destination, capturedNames(compiled)) };
      const first = compiled.head[0];
      if (first?.kind === 'literal') {
        const bucket = this.byFirstSegment.get(first.text);
        if (bucket === undefined) this.byFirstSegment.set(first.text, [pattern]);
        else bucket.push(pattern);
      } else {
        this.unanchored.push(pattern);
      }
    });
    this.size = size;
    this.unsupported = unsupported;
  }

  /**
   * The destination for a site path like `/beta/intro` (no query or anchor), with
   * captures substituted, or undefined when no rule matches. Exact rules come first, then
   * pattern rules in the order the file lists them. Absolute URL destinations come back
   * as written (with captures substituted).
   */
  resolve(sitePath: string): string | undefined {
    if (typeof sitePath !== 'string' || sitePath.length > MAX_SITE_PATH_LENGTH) return undefined;
    const segments = pathSegments(sitePath);
    const exact = this.exact.get(segments.join('/'));
    if (exact !== undefined) return exact;
    const anchored = segments.length > 0 ? (this.byFirstSegment.get(segments[0]!) ?? []) : [];
    // Both lists are in file order: merge them so the first rule listed wins.
    let a = 0;
    let u = 0;
    while (a < anchored.length || u < this.unanchored.length) {
      const takeAnchored = u >= this.unanchored.length || (a < anchored.length && anchored[a]!.order < this.unanchored[u]!.order);
      const rule = takeAnchored ? anchored[a++]! : this.unanchored[u++]!;
      const captures = matchSource(rule.source, segments);
      if (captures !== undefined) return fillDestination(rule.destination, captures);
    }
    return undefined;
  }
}
