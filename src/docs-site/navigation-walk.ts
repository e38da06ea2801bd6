import type { LoadedFile } from './config-files.js';
import { clip } from './config-files.js';
import { trimSlashes } from './trim-slashes.js';
import type { ConfigReader, Expanded, Slot } from './config-node.js';
import type { ProblemSink } from './problem-sink.js';
import type { NavigationEntry, OpenApiSource, SiteVariant } from './site-config-types.js';
import { SITE_CONFIG_LIMITS as LIMITS } from './site-config-limits.js';
import { URL_SCHEME } from './site-paths.js';

/**
 * Keys under which https://www.mintlify.com/docs/organize/navigation nests levels:
 * tabs, anchors, dropdowns, products, a tab's `menu`, groups. (`items` is kept from
 * navigation-check.ts for older shapes.) `pages`, `versions` and `languages` are read
 * apart because they hold pages and variants.
 */
const NESTING_KEYS = ['tabs', 'anchors', 'dropdowns', 'products', 'menu', 'groups', 'items'] as const;
/** https://www.mintlify.com/docs/api-playground/openapi-setup: methods an operation entry may name, and `webhook`. */
const OPERATION_WORDS = new Set(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'TRACE', 'WEBHOOK']);
/** https://www.mintlify.com/docs/api-playground/endpoint-urls: generated pages go here unless `directory` says otherwise. */
const DEFAULT_OPENAPI_DIRECTORY = 'api-reference';

export interface NavigationResult {
  navigation: NavigationEntry[];
  variants: SiteVariant[];
  openapi: OpenApiSource[];
}

/**
 * `"GET /users"`, `"openapi.json POST /pets"`, `"webhook /x"`: entries naming an OpenAPI
 * operation (https://www.mintlify.com/docs/api-playground/openapi-setup), whose page is
 * generated, not a file.
 */
export function isOperationReference(entry: string): boolean {
  const words = entry.trim().split(/\s+/);
  if (words.length >= 2 && OPERATION_WORDS.has(words[0]!.toUpperCase())) return true;
  return words.length >= 3 && OPERATION_WORDS.has(words[1]!.toUpperCase());
}

/**
 * Walks docs.json `navigation` (an object nesting tabs, groups, pages, versions,
 * languages…) or mint.json's (an array of `{group, pages}`), collecting page entries,
 * versions and languages with the pages under them, and OpenAPI declarations.
 */
export class NavigationWalk {
  readonly result: NavigationResult = { navigation: [], variants: [], openapi: [] };
  private readonly legacyVersions = new Map<string, SiteVariant>();
  private memberships = 0;
  private readonly reported = new Set<string>();

  constructor(
    private readonly reader: ConfigReader,
    private readonly problems: ProblemSink,
    private readonly configPath: string,
  ) {}

  /**
   * mint.json (https://www.mintlify.com/docs/organize/settings, "Upgrade from mint.json"):
   * top-level `versions: ["v1", "v2"]`, the first the default; groups carry `version`.
   */
  declareLegacyVersions(slot: Slot | undefined): void {
    const list = this.reader.expand(slot);
    if (list.kind !== 'array') return;
    for (const item of list.items) {
      const expanded = this.reader.expand(item);
      const name = expanded.kind === 'string' ? expanded.value : nameOf(this.reader, expanded, 'name');
      if (name === undefined || this.legacyVersions.has(name)) continue;
      const variant = this.addVariant('version', name, this.legacyVersions.size === 0);
      if (variant !== undefined) this.legacyVersions.set(name, variant);
    }
  }

  walk(slot: Slot | undefined): void {
    this.visit(this.reader.expand(slot), 0, []);
  }

  /** An `openapi` value in any of its three shapes: a path or URL, a list of them, or `{source, directory}`. */
  addOpenApi(slot: Slot | undefined): void {
    const expanded = this.reader.expand(slot);
    if (expanded.kind === 'string') this.pushOpenApi(expanded.value, expanded.file, undefined);
    else if (expanded.kind === 'array') {
      for (const item of expanded.items) {
        const inner = this.reader.expand(item);
        if (inner.kind === 'string') this.pushOpenApi(inner.value, inner.file, undefined);
        else if (inner.kind === 'object') this.addOpenApiObject(inner);
      }
    } else if (expanded.kind === 'object') this.addOpenApiObject(expanded);
  }

  private visit(node: Expanded, depth: number, active: readonly SiteVariant[]): void {
    if (depth > LIMITS.maxNavigationDepth) {
      this.once('depth', `The navigation of ${this.configPath} nests more than ${LIMITS.maxNavigationDepth} levels deep; entries below that were left out.`);
      return;
    }
    if (node.kind === 'array') {
      for (const item of node.items) this.visit(this.reader.expand(item), depth + 1, active);
      return;
    }
    if (node.kind !== 'object') return;
    let here = active;
    const tag = this.reader.expand(node.fields.get('version'));
    if (tag.kind === 'string') here = this.withLegacyVersion(tag.value, here);
    const pages = this.reader.expand(node.fields.get('pages'));
    if (pages.kind === 'array') {
      for (const item of pages.items) {
        // Past the cap nothing more is kept: stop instead of walking a million more values.
        if (this.result.navigation.length >= LIMITS.maxNavigationEntries) {
          this.entriesCapped();
          break;
        }
        const entry = this.reader.expand(item);
        if (entry.kind === 'string') this.addPage(entry.value, entry.file, here);
        else this.visit(entry, depth + 1, here);
      }
    }
    // A docs.json group may have a landing page of its own.
    const root = this.reader.expand(node.fields.get('root'));
    if (root.kind === 'string') this.addPage(root.value, root.file, here);
    if (node.fields.has('openapi')) this.addOpenApi(node.fields.get('openapi'));
    for (const key of NESTING_KEYS) if (node.fields.has(key)) this.visit(this.reader.expand(node.fields.get(key)), depth + 1, here);
    this.visitVariants(node.fields.get('versions'), 'version', depth, here);
    this.visitVariants(node.fields.get('languages'), 'language', depth, here);
  }

  /**
   * https://www.mintlify.com/docs/organize/navigation (versions, languages): the entry with
   * `"default": true` is the default, else the first listed.
   */
  private visitVariants(slot: Slot | undefined, kind: 'version' | 'language', depth: number, active: readonly SiteVariant[]): void {
    if (slot === undefined) return;
    const list = this.reader.expand(slot);
    if (list.kind !== 'array') return;
    const items = list.items.map((item) => this.reader.expand(item));
    const named = items.map((item) => nameOf(this.reader, item, kind));
    let chosen = items.findIndex((item, index) => named[index] !== undefined && isTrue(this.reader, item));
    if (chosen === -1) chosen = named.findIndex((name) => name !== undefined);
    items.forEach((item, index) => {
      const name = named[index];
      const variant = name === undefined ? undefined : this.addVariant(kind, name, index === chosen);
      // The variant's own `version`/`language` key is its name, not a legacy group tag.
      if (item.kind === 'object') item.fields.delete(kind === 'version' ? 'version' : 'language');
      this.visit(item, depth + 1, variant === undefined ? active : [...active, variant]);
    });
  }

  private withLegacyVersion(name: string, active: readonly SiteVariant[]): readonly SiteVariant[] {
    let variant = this.legacyVersions.get(name);
    if (variant === undefined) {
      // Be lenient: a group naming a version the top-level list forgot still gets one.
      variant = this.addVariant('version', name, false);
      if (variant === undefined) return active;
      this.legacyVersions.set(name, variant);
    }
    return active.includes(variant) ? active : [...active, variant];
  }

  private addVariant(kind: 'version' | 'language', name: string, isDefault: boolean): SiteVariant | undefined {
    if (this.result.variants.length >= LIMITS.maxVariants) {
      this.once('variants', `${this.configPath} declares more than ${LIMITS.maxVariants} versions and languages; the rest were left out.`);
      return undefined;
    }
    const variant: SiteVariant = { kind, name: clip(name), isDefault, pages: [] };
    this.result.variants.push(variant);
    return variant;
  }

  private addPage(page: string, file: LoadedFile, active: readonly SiteVariant[]): void {
    if (page.trim() === '' || URL_SCHEME.test(page) || page.length > LIMITS.maxPathLength * 4) return;
    if (page.length > LIMITS.maxPathLength) {
      this.problems.push(
        { path: file.path, kind: 'navigation', message: `Navigation page "${clip(page)}" is longer than ${LIMITS.maxPathLength} characters; it was left out.` },
        file.lines.lineOf(page),
      );
      return;
    }
    if (isOperationReference(page)) return;
    if (this.result.navigation.length >= LIMITS.maxNavigationEntries) {
      this.entriesCapped();
      return;
    }
    const entry: NavigationEntry = { page, file: file.path };
    const line = file.lines.lineOf(page);
    if (line !== undefined) entry.line = line;
    this.result.navigation.push(entry);
    for (const variant of active) {
      if (this.memberships >= LIMITS.maxVariantPages) {
        this.once(
          'memberships',
          `The versions and languages of ${this.configPath} list more than ${LIMITS.maxVariantPages} pages together; the rest were left out of them.`,
        );
        return;
      }
      this.memberships += 1;
      variant.pages.push(page);
    }
  }

  private addOpenApiObject(node: Expanded): void {
    const source = this.reader.expand(this.reader.field(node, 'source'));
    if (source.kind !== 'string') return;
    const directory = this.reader.expand(this.reader.field(node, 'directory'));
    this.pushOpenApi(source.value, source.file, directory.kind === 'string' ? directory.value : undefined);
  }

  private pushOpenApi(source: string, file: LoadedFile, directory: string | undefined): void {
    if (source.trim() === '' || source.length > LIMITS.maxPathLength) return;
    if (this.result.openapi.length >= LIMITS.maxOpenApiSources) {
      this.once('openapi', `${this.configPath} declares more than ${LIMITS.maxOpenApiSources} OpenAPI sources; the rest were left out.`);
      return;
    }
    const folder = trimSlashes((directory ?? '').slice(0, LIMITS.maxPathLength).toLowerCase());
    const declared: OpenApiSource = { source, directory: folder === '' ? DEFAULT_OPENAPI_DIRECTORY : folder, file: file.path };
    const line = file.lines.lineOf(source);
    if (line !== undefined) declared.line = line;
    this.result.openapi.push(declared);
  }

  private entriesCapped(): void {
    this.once('entries', `The navigation of ${this.configPath} lists more than ${LIMITS.maxNavigationEntries} pages; the rest were left out.`);
  }

  /** A cap problem, reported once per kind. */
  private once(key: string, message: string): void {
    if (this.reported.has(key)) return;
    this.reported.add(key);
    this.problems.push({ path: this.configPath, kind: 'limit', message });
  }
}

function nameOf(reader: ConfigReader, node: Expanded, key: string): string | undefined {
  const value = reader.expand(reader.field(node, key));
  return value.kind === 'string' && value.value.trim() !== '' ? value.value : undefined;
}

function isTrue(reader: ConfigReader, node: Expanded): boolean {
  const slot = reader.field(node, 'default');
  return slot?.value === true;
}
