import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { resolve } from 'node:path';

/**
 * Absolute paths of the server, as they appear in git's and Node's error messages, are
 * replaced before a job error is stored: API callers see `<workspace>/.git/index.lock`,
 * not where the data dir lives, whose home directory it is, or what the process runs
 * from. The project's own repository path is kept verbatim, since the API shows it as
 * the job's `source.repository` anyway and it is the most useful word of a clone error.
 */
export interface ServerPlaces {
  dataDir: string;
  workspacesDir: string;
  cwd?: string;
  home?: string;
}

interface Rule {
  path: string;
  pattern: RegExp;
  replacement: string;
}

export type ServerPathScrubber = (text: string, keep?: readonly string[]) => string;

export function createServerPathScrubber(places: ServerPlaces): ServerPathScrubber {
  const workspaces = spellings(places.workspacesDir);
  // Sorted most specific first: the data dir may lie in the working directory, in home.
  const rules: Rule[] = [
    // One job's clone, and anything inside it, is `<workspace>`.
    ...workspaces.map((path) => ({ path: `${path}/`, pattern: pathPattern(`${path}/`, '[^/\\s\'"`:]+'), replacement: '<workspace>' })),
    ...workspaces.map((path) => rule(path, '<workspaces>')),
    ...spellings(places.dataDir).map((path) => rule(path, '<data dir>')),
    ...spellings(places.cwd ?? process.cwd()).map((path) => rule(path, '<cwd>')),
    ...spellings(places.home ?? homedir()).map((path) => rule(path, '~')),
  ].sort((a, b) => b.path.length - a.path.length);
  return (text, keep = []) => {
    const kept = keep.filter((path) => path.length > 1);
    if (kept.length === 0) return applyRules(text, rules);
    // Split around the kept paths (odd parts), so no rule touches them.
    const parts = text.split(
      new RegExp(
        `(${kept
          .map(escape)
          .sort((a, b) => b.length - a.length)
          .join('|')})`,
      ),
    );
    return parts.map((part, index) => (index % 2 === 1 ? part : applyRules(part, rules))).join('');
  };
}

function rule(path: string, replacement: string): Rule {
  return { path, pattern: pathPattern(path), replacement };
}

function applyRules(text: string, rules: readonly Rule[]): string {
  return rules.reduce((result, rule) => result.replace(rule.pattern, rule.replacement), text);
}

/**
 * `path` where it starts a path of its own (not inside a longer name or a URL), followed by
 * `rest`, or by the end of its last name.
 */
function pathPattern(path: string, rest = ''): RegExp {
  return new RegExp(`(?<![\\w.~/:-])${escape(path)}${rest}(?![\\w.~-])`, 'g');
}

/** The path as configured and as the kernel resolves it (git reports either); never "/". */
function spellings(path: string): string[] {
  const absolute = resolve(path).replace(/\/+$/, '');
  const found = new Set<string>([absolute]);
  try {
    found.add(realpathSync(absolute));
  } catch {
    // Not there (yet): only the configured spelling can appear.
  }
  return [...found].filter((candidate) => candidate.split('/').filter(Boolean).length > 0);
}

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
