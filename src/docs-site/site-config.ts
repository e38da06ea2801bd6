import path from 'node:path';
import { clip, loadConfigFiles } from './config-files.js';
import { ConfigReader, type Slot } from './config-node.js';
import { NavigationWalk } from './navigation-walk.js';
import type { ConfigBuild, RedirectRule, SiteConfig } from './site-config-types.js';
import type { ProblemSink } from './problem-sink.js';
import { compileSource } from './redirect-pattern.js';
import { MAX_REDIRECT_LENGTH } from './redirect-table.js';
import { SITE_CONFIG_LIMITS as LIMITS } from './site-config-limits.js';

/**
 * Reads a Mintlify site configuration (docs.json, or the legacy mint.json) with its `$ref`
 * files. `texts` maps workspace-relative paths to file text, or null when the file does
 * not exist or cannot be read. Until every `$ref` target is in `texts`, the answer is
 * `needs` (the paths still missing); the caller reads them and calls again. Synchronous,
 * bounded by SITE_CONFIG_LIMITS, and never throws on bad input: it reports problems.
 */
export function buildSiteConfig(configPath: string, texts: ReadonlyMap<string, string | null>): ConfigBuild {
  const folder = path.posix.dirname(configPath);
  const docsRoot = folder === '.' ? '' : folder;
  const loaded = loadConfigFiles(configPath, docsRoot, texts);
  if (!loaded.done) return loaded;
  const problems = loaded.problems;
  const config: SiteConfig = { configPath, docsRoot, navigation: [], redirects: [], variants: [], openapi: [], files: loaded.order, problems: [] };
  const reader = new ConfigReader(loaded.files, docsRoot);
  const root = reader.expand(reader.rootOf(configPath));
  if (root.kind === 'object') {
    const walk = new NavigationWalk(reader, problems, configPath);
    walk.declareLegacyVersions(root.fields.get('versions'));
    walk.walk(root.fields.get('navigation'));
    // mint.json declared its spec at the top level; docs.json moved it into the navigation.
    if (root.fields.has('openapi')) walk.addOpenApi(root.fields.get('openapi'));
    Object.assign(config, walk.result);
    config.redirects = readRedirects(reader, root.fields.get('redirects'), problems, configPath);
  } else if (loaded.files.get(configPath)?.parsed) {
    problems.push({ path: configPath, kind: 'navigation', message: `${configPath} does not hold a JSON object.` });
  }
  if (reader.exhausted) {
    problems.push({
      path: configPath,
      kind: 'limit',
      message: `Following the $ref files of ${configPath} passed ${LIMITS.maxVisitedNodes} values; the rest was left out.`,
    });
  }
  config.problems = problems.finish();
  return { done: true, config };
}

/**
 * https://www.mintlify.com/docs/create/redirects: a top-level array of
 * `{source, destination}` (also in mint.json), possibly split out with `$ref`. Sources
 * cannot include `#anchor` or `?query`; destinations may.
 */
function readRedirects(reader: ConfigReader, slot: Slot | undefined, problems: ProblemSink, configPath: string): RedirectRule[] {
  const rules: RedirectRule[] = [];
  const list = reader.expand(slot);
  if (list.kind !== 'array') return rules;
  for (const item of list.items) {
    const rule = reader.expand(item);
    const source = reader.expand(reader.field(rule, 'source'));
    const destination = reader.expand(reader.field(rule, 'destination'));
    if (source.kind !== 'string' || destination.kind !== 'string') {
      const file = source.kind === 'string' ? source.file : destination.kind === 'string' ? destination.file : item.file;
      const line =
        source.kind === 'string' ? file.lines.lineOf(source.value) : destination.kind === 'string' ? file.lines.lineOf(destination.value) : undefined;
      problems.push({ path: file.path, kind: 'navigation', message: 'A redirect needs a "source" and a "destination" string.' }, line);
      continue;
    }
    const line = source.file.lines.lineOf(source.value);
    if (source.value.length > MAX_REDIRECT_LENGTH || destination.value.length > MAX_REDIRECT_LENGTH) {
      problems.push(
        {
          path: source.file.path,
          kind: 'navigation',
          message: `Redirect "${clip(source.value)}" is longer than ${MAX_REDIRECT_LENGTH} characters; it was left out.`,
        },
        line,
      );
      continue;
    }
    if (source.value.includes('#') || source.value.includes('?')) {
      problems.push(
        {
          path: source.file.path,
          kind: 'navigation',
          message: `Redirect source "${clip(source.value)}" includes an anchor or query, which Mintlify redirects cannot match.`,
        },
        line,
      );
      continue;
    }
    const compiled = compileSource(source.value);
    if ('unsupported' in compiled) {
      problems.push(
        { path: source.file.path, kind: 'navigation', message: `Redirect source "${clip(source.value)}" is not supported: ${compiled.unsupported}.` },
        line,
      );
      continue;
    }
    if (rules.length >= LIMITS.maxRedirects) {
      problems.push(
        { path: source.file.path, kind: 'limit', message: `${configPath} has more than ${LIMITS.maxRedirects} redirects; the rest were left out.` },
        line,
      );
      break;
    }
    const redirect: RedirectRule = { source: source.value, destination: destination.value, file: source.file.path };
    if (line !== undefined) redirect.line = line;
    rules.push(redirect);
  }
  return rules;
}
