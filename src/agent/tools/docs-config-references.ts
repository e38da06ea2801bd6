import path from 'node:path';
import { realpath } from 'node:fs/promises';
import { globWorkspace } from './workspace-glob.js';
import { readBytes, decodeText } from './text-file.js';
import { resolveInWorkspace } from './resolve-in-workspace.js';
import { SITE_CONFIG_NAMES, URL_SCHEME } from '../../docs-site/site-paths.js';
import { nestingDepth } from '../../docs-site/json-document.js';

/** Only data files can be pulled in: a `$ref` to a script gains nothing. */
const DATA_FILE = /\.(?:json|ya?ml)$/i;
// JSON.parse runs on the main thread: 2 MiB parses in a few milliseconds.
const MAX_CONFIG_BYTES = 2 * 1024 * 1024;
const MAX_FILES = 200;
const MAX_VALUES = 10_000;
/**
 * JSON.parse runs on the main thread, and a document nested 100,000 levels deep took it
 * 105 ms (measured). Real site configurations are a few levels deep; a deeper one is not
 * parsed, so it adds no references (the policy only gets narrower).
 */
const MAX_DEPTH = 64;

/**
 * The files a Mintlify site configuration (docs.json / mint.json) pulls in with `"$ref"`
 * (followed through the referenced JSON files) and the OpenAPI specs its navigation
 * names (`"openapi": "spec.yaml"`, a list of them, or `{"source": …}`), as
 * workspace-relative paths. Read from the checkout before the agent runs, so an edit
 * cannot widen what the write policy allows. URLs and paths outside the workspace are
 * ignored; sizes and counts are capped.
 */
export async function findConfigReferences(workspace: string): Promise<string[]> {
  const root = await realpath(workspace);
  const configs = await globWorkspace(root, `**/{${SITE_CONFIG_NAMES.join(',')}}`, {
    maxPatternLength: 100,
    ignore: ['**/node_modules/**'],
  });
  const found = new Set<string>();
  const queue = configs.map((config) => ({ file: config, docsRoot: path.posix.dirname(config) }));
  const visited = new Set<string>();
  while (queue.length > 0 && visited.size < MAX_FILES) {
    const { file, docsRoot } = queue.shift()!;
    if (visited.has(file)) continue;
    visited.add(file);
    const parsed = await readJson(root, file);
    if (parsed === undefined) continue;
    for (const { key, value } of stringValues(parsed)) {
      if (key !== '$ref' && key !== 'openapi' && key !== 'source') continue;
      for (const candidate of candidatesFor(value, file, docsRoot)) {
        found.add(candidate);
        if (key === '$ref' && candidate.toLowerCase().endsWith('.json')) queue.push({ file: candidate, docsRoot });
      }
    }
  }
  return [...found].sort();
}

/**
 * Mintlify resolves navigation paths from the docs root, with or without a leading `/`;
 * a `$ref` may also be written relative to the file holding it. Both readings are kept.
 */
function candidatesFor(value: string, file: string, docsRoot: string): string[] {
  if (URL_SCHEME.test(value) || !DATA_FILE.test(value) || value.includes('\0')) return [];
  const trimmed = value.replace(/^\/+/, '');
  const readings = [path.posix.join(docsRoot, trimmed), path.posix.join(path.posix.dirname(file), value)];
  return readings
    .map((reading) => path.posix.normalize(reading))
    .filter((reading) => reading !== '.' && !reading.startsWith('../') && reading !== '..' && !reading.startsWith('/'));
}

/** A config file's JSON, read through the workspace resolver (no link followed in any component), else undefined. */
async function readJson(root: string, file: string): Promise<unknown> {
  const resolved = await resolveInWorkspace(root, file).catch(() => undefined);
  const bytes = resolved?.kind === 'file' ? await readBytes(resolved.absolute, file, MAX_CONFIG_BYTES).catch(() => undefined) : undefined;
  const text = bytes === undefined ? undefined : decodeText(bytes);
  // A file read here is one the repository chose: give the event loop a turn between files.
  await new Promise<void>((resolve) => setImmediate(resolve));
  if (text === undefined || nestingDepth(text, MAX_DEPTH) > MAX_DEPTH) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** Every string value with the key it sits under (array items inherit their array's key). */
function stringValues(document: unknown): Array<{ key: string; value: string }> {
  const values: Array<{ key: string; value: string }> = [];
  const stack: Array<{ key: string; node: unknown }> = [{ key: '', node: document }];
  while (stack.length > 0 && values.length < MAX_VALUES) {
    const { key, node } = stack.pop()!;
    if (typeof node === 'string') values.push({ key, value: node });
    else if (Array.isArray(node)) for (const item of node) stack.push({ key, node: item });
    else if (node !== null && typeof node === 'object') {
      for (const [childKey, child] of Object.entries(node)) {
        // `{"openapi": {"source": "spec.yaml"}}`: the source counts only under openapi.
        stack.push({ key: childKey === 'source' && key !== 'openapi' ? '' : childKey, node: child });
      }
    }
  }
  return values;
}
