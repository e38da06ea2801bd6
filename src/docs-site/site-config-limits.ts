/**
 * Caps on what a site configuration may make `buildSiteConfig` do. Every input comes from
 * the repository, so each loop over it is bounded; going past a cap adds a problem and
 * leaves the rest out, it never throws.
 */
export const SITE_CONFIG_LIMITS = {
  /** The config plus every file pulled in with `$ref`. */
  maxFiles: 200,
  /** `$ref` inside a `$ref`'d file inside …: the caller reads one level per round. */
  maxRefDepth: 32,
  /** JSON.parse of a document 100,000 levels deep took 105 ms on the main thread (see docs-config-references.ts). */
  maxJsonDepth: 64,
  /** Per file; JSON.parse of 2 MiB takes a few milliseconds. */
  maxFileChars: 2 * 1024 * 1024,
  /** All files together, so 200 large files cannot add up to a slow parse. */
  maxTotalChars: 8 * 1024 * 1024,
  /** Levels of tabs/groups/pages nesting walked (the walk recurses). */
  maxNavigationDepth: 100,
  maxNavigationEntries: 100_000,
  /** Page memberships across all versions and languages (a page under a version and a language counts twice). */
  maxVariantPages: 200_000,
  maxVariants: 1_000,
  maxRedirects: 10_000,
  maxOpenApiSources: 1_000,
  /** A page path or `$ref` longer than this is no real path. */
  maxPathLength: 1_024,
  /** Objects, arrays and strings visited while following `$ref`s: a file referenced ten times from a file referenced ten times… grows exponentially. */
  maxVisitedNodes: 2_000_000,
  /** Problems reported from one configuration. */
  maxProblems: 1_000,
} as const;
