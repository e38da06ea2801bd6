import type { LoadedFile } from './config-files.js';
import { refOf, refTarget } from './config-files.js';
import { SITE_CONFIG_LIMITS as LIMITS } from './site-config-limits.js';

/** A value in the configuration with the file it is written in (for lines and for `$ref` paths). */
export interface Slot {
  value: unknown;
  file: LoadedFile;
  /** Files entered through `$ref` on the way here, innermost first: guards against cycles. */
  chain: RefChain | undefined;
}

interface RefChain {
  path: string;
  depth: number;
  outer: RefChain | undefined;
}

export type Expanded =
  { kind: 'object'; fields: Map<string, Slot> } | { kind: 'array'; items: Slot[] } | { kind: 'string'; value: string; file: LoadedFile } | { kind: 'other' };

/**
 * Reads configuration values with `$ref`s replaced, without building the merged document:
 * each value keeps the file it came from, so lines point into the right file.
 */
export class ConfigReader {
  private visited = 0;
  /** True once `maxVisitedNodes` was reached: later values read as empty. */
  exhausted = false;

  constructor(
    private readonly files: ReadonlyMap<string, LoadedFile>,
    private readonly docsRoot: string,
  ) {}

  rootOf(path: string): Slot | undefined {
    const file = this.files.get(path);
    return file?.parsed ? { value: file.value, file, chain: { path, depth: 0, outer: undefined } } : undefined;
  }

  /**
   * The value with `$ref` resolved (https://www.mintlify.com/docs/organize/settings, "Merge
   * sibling keys"): when the referenced file holds an object, sibling keys of the `$ref`
   * are laid over it; when it holds anything else, siblings are ignored. A `$ref` that
   * leads nowhere (missing, unparsable, cyclic: reported while loading) leaves the siblings.
   */
  expand(slot: Slot | undefined): Expanded {
    if (slot === undefined || !this.spend()) return { kind: 'other' };
    const { value, file, chain } = slot;
    if (typeof value === 'string') return { kind: 'string', value, file };
    if (Array.isArray(value)) return { kind: 'array', items: value.map((item: unknown) => ({ value: item, file, chain })) };
    if (value === null || typeof value !== 'object') return { kind: 'other' };
    const own = new Map<string, Slot>();
    for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
      if (key !== '$ref') own.set(key, { value: child, file, chain });
    }
    const ref = refOf(value);
    if (ref === undefined) return { kind: 'object', fields: own };
    const target = this.follow(file, ref, chain);
    if (target === undefined) return { kind: 'object', fields: own };
    const referenced = this.expand(target);
    if (referenced.kind !== 'object') return referenced;
    for (const [key, child] of own) referenced.fields.set(key, child);
    return referenced;
  }

  /** The field of an object value, `$ref`s resolved, or undefined. */
  field(expanded: Expanded, key: string): Slot | undefined {
    return expanded.kind === 'object' ? expanded.fields.get(key) : undefined;
  }

  private follow(file: LoadedFile, ref: string, chain: RefChain | undefined): Slot | undefined {
    const target = refTarget(file.path, ref, this.docsRoot);
    if (!target.ok) return undefined;
    const loaded = this.files.get(target.path);
    if (!loaded?.parsed) return undefined;
    const depth = (chain?.depth ?? 0) + 1;
    if (depth > LIMITS.maxRefDepth) return undefined;
    for (let outer = chain; outer !== undefined; outer = outer.outer) if (outer.path === target.path) return undefined;
    return { value: loaded.value, file: loaded, chain: { path: target.path, depth, outer: chain } };
  }

  private spend(): boolean {
    this.visited += 1;
    if (this.visited > LIMITS.maxVisitedNodes) this.exhausted = true;
    return !this.exhausted;
  }
}
