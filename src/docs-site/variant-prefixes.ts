import type { SiteVariant } from './site-config-types.js';

export interface VariantPrefixes {
  /** Prefixes of the default version and language. */
  defaults: string[];
  /** Prefixes of every version and language. */
  all: string[];
}

/**
 * The folder each version or language keeps its pages in. docs.json does not name it:
 * https://www.mintlify.com/docs/organize/navigation#versions lists each version's pages by
 * their paths (`v2/quickstart`), and real sites put a language's pages under its code
 * (`es/…`) or any folder. So the prefix is read from the pages themselves: the first one
 * or two folders that more than half of the variant's pages share. The default variant is
 * the one marked `"default": true`, else the first listed (as Mintlify picks it).
 */
export function variantPrefixes(variants: readonly SiteVariant[]): VariantPrefixes {
  const defaults = new Set<string>();
  const all = new Set<string>();
  for (const kind of ['version', 'language'] as const) {
    const ofKind = variants.filter((variant) => variant.kind === kind);
    const chosen = ofKind.find((variant) => variant.isDefault) ?? ofKind[0];
    for (const variant of ofKind) {
      for (const prefix of majorityPrefixes(variant.pages)) {
        all.add(prefix);
        if (variant === chosen) defaults.add(prefix);
      }
    }
  }
  return { defaults: [...defaults], all: [...all] };
}

function majorityPrefixes(pages: readonly string[]): string[] {
  const folders = pages.map((page) => page.trim().replace(/^\/+/, '').split('/')).filter((segments) => segments.length > 1);
  if (folders.length === 0) return [];
  const prefixes: string[] = [];
  let candidates = folders;
  let prefix = '';
  for (let depth = 0; depth < 2; depth += 1) {
    const counts = new Map<string, number>();
    for (const segments of candidates) {
      if (segments.length > depth + 1) counts.set(segments[depth]!, (counts.get(segments[depth]!) ?? 0) + 1);
    }
    let best: string | undefined;
    let bestCount = 0;
    for (const [segment, count] of counts) {
      if (count > bestCount) {
        best = segment;
        bestCount = count;
      }
    }
    if (best === undefined || bestCount * 2 <= folders.length) break;
    prefix = prefix === '' ? best : `${prefix}/${best}`;
    prefixes.push(prefix);
    candidates = candidates.filter((segments) => segments[depth] === best);
  }
  return prefixes;
}
