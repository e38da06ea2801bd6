import { compileGlob, preparePath, type GlobMatcher } from './glob-pattern.js';
import { ALLOWED_DOTFILES, BUILT_IN_DENY, DEFAULT_ALLOW, DENY_REASONS, type DenyCategory } from './write-policy-defaults.js';

/** A project's additions to the built-in policy (project settings `writePolicy`). */
export interface WritePolicySettings {
  /** Extra globs the agent may change, on top of the documentation defaults. */
  allow?: readonly string[];
  /** Extra globs the agent may never change; they win over every allow. */
  deny?: readonly string[];
}

export type WriteVerdict = { allowed: true } | { allowed: false; reason: string };

export interface RefusedFile {
  path: string;
  reason: string;
}

/** Git index modes of a regular file; everything else (755, links, submodules) is refused. */
const REGULAR_FILE_MODES = new Set(['100644', '000000']);

/**
 * Decides which paths the agent may create, change, move or delete. Checked by every
 * changing tool before it touches the disk, and again by the commit step on what git
 * staged, whatever put it there. Order: built-in deny, dot files, project deny, then
 * the allow-list (documentation defaults, the site configuration's references, the
 * project's additions). Paths are compared case-insensitively, so `.GitHub/` or
 * `Package.JSON` gain nothing on a case-insensitive checkout.
 */
export class WritePolicy {
  private readonly builtInDeny: Array<{ category: DenyCategory; matcher: GlobMatcher }>;
  private readonly dotfiles: GlobMatcher[];
  private readonly projectDeny: GlobMatcher[];
  private readonly allow: GlobMatcher[];
  private readonly referenced: ReadonlySet<string>;

  /**
   * @param referencedFiles workspace-relative files the site configuration pulls in
   *   (`$ref`) or names as OpenAPI specs, read from the checkout as cloned.
   */
  constructor(settings: WritePolicySettings = {}, referencedFiles: Iterable<string> = []) {
    this.builtInDeny = BUILT_IN_DENY.flatMap(({ category, patterns }) => patterns.map((pattern) => ({ category, matcher: compileLower(pattern) })));
    this.dotfiles = ALLOWED_DOTFILES.map(compileLower);
    this.projectDeny = (settings.deny ?? []).map(compileLower);
    this.allow = [...DEFAULT_ALLOW, ...(settings.allow ?? [])].map(compileLower);
    this.referenced = new Set([...referencedFiles].map((file) => file.toLowerCase()));
  }

  /** Whether the agent may change `path` (workspace-relative, `/`-separated). */
  check(path: string): WriteVerdict {
    const lower = path.normalize('NFC').toLowerCase();
    const prepared = preparePath(lower);
    const denied = this.builtInDeny.find(({ matcher }) => matcher.matchesPrepared(prepared));
    if (denied !== undefined) return refuse(DENY_REASONS[denied.category]);
    const allowedDotfile = this.dotfiles.some((matcher) => matcher.matchesPrepared(prepared));
    if (!allowedDotfile && lower.split('/').some((segment) => segment.startsWith('.'))) return refuse(DENY_REASONS.dotfile);
    if (this.projectDeny.some((matcher) => matcher.matchesPrepared(prepared))) return refuse(DENY_REASONS.project);
    if (allowedDotfile || this.referenced.has(lower) || this.allow.some((matcher) => matcher.matchesPrepared(prepared))) return { allowed: true };
    return refuse(DENY_REASONS['not-docs']);
  }

  /** The check of the commit step: the path, and the mode git staged it with. */
  checkStaged(path: string, mode: string): WriteVerdict {
    if (!REGULAR_FILE_MODES.has(mode)) return refuse(DENY_REASONS.mode);
    return this.check(path);
  }
}

function refuse(reason: string): WriteVerdict {
  return { allowed: false, reason };
}

function compileLower(pattern: string): GlobMatcher {
  return compileGlob(pattern.toLowerCase());
}

/** The sentence a tool answers with when the policy refuses a path. */
export function describeRefusal(path: string, reason: string): string {
  return `${path} ${reason}, so it cannot be changed: the agent may only change documentation content. Leave this file as it is and mention in your final message what should be changed there, for a person to do.`;
}

/**
 * Validates globs for project settings: each must compile, and stay within sensible
 * sizes. Returns a message per bad entry (empty when all are fine).
 */
export function validatePolicyGlobs(globs: readonly string[]): string[] {
  const problems: string[] = [];
  globs.forEach((glob, index) => {
    try {
      compileGlob(glob);
    } catch (error) {
      problems.push(`entry ${index}: ${(error as Error).message}`);
    }
  });
  return problems;
}
