import type { DocsProblem } from './docs-problem.js';

// The site model that buildSiteConfig answers with, apart from it so the navigation walk can
// name these types without importing the builder that imports it.

/** A page named in the navigation; `file` is the docs.json or `$ref` file it is written in. */
export interface NavigationEntry {
  page: string;
  file: string;
  line?: number;
}

export interface RedirectRule {
  source: string;
  destination: string;
  file: string;
  line?: number;
}

/** A version or language; `pages` lists every navigation page string beneath it, as written. */
export interface SiteVariant {
  kind: 'version' | 'language';
  name: string;
  isDefault: boolean;
  pages: string[];
}

/** An `openapi` declaration; `directory` is where its generated pages go (lowercased, no slashes around). */
export interface OpenApiSource {
  source: string;
  directory: string;
  file: string;
  line?: number;
}

export interface SiteConfig {
  /** Workspace-relative, e.g. 'docs/docs.json'. */
  configPath: string;
  /** The folder of the config, '' for the workspace root. */
  docsRoot: string;
  navigation: NavigationEntry[];
  redirects: RedirectRule[];
  variants: SiteVariant[];
  openapi: OpenApiSource[];
  /** Every file read: the config and each `$ref` file (workspace-relative). */
  files: string[];
  problems: DocsProblem[];
}

export type ConfigBuild = { done: true; config: SiteConfig } | { done: false; needs: string[] };
