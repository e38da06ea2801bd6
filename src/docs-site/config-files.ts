import path from 'node:path';
import { URL_SCHEME } from './site-paths.js';
import type { DocsProblem } from './docs-problem.js';
import { ProblemSink } from './problem-sink.js';
import { parseJsonDocument } from './json-document.js';
import { JsonStringLines } from './json-string-lines.js';
import { SITE_CONFIG_LIMITS as LIMITS } from './site-config-limits.js';

/** A config file that was read and parsed (or not: `parsed` says why). */
export interface LoadedFile {
  path: string;
  /** The JSON value, or undefined when the file could not be parsed (a problem says why). */
  value: unknown;
  parsed: boolean;
  lines: JsonStringLines;
}

/** Where a `$ref` leads: a workspace-relative file, or the reason it leads nowhere. */
export type RefTarget = { ok: true; path: string } | { ok: false; reason: string };

export type ConfigFiles = { done: true; files: Map<string, LoadedFile>; order: string[]; problems: ProblemSink } | { done: false; needs: string[] };

/**
 * https://www.mintlify.com/docs/organize/settings ("Split configuration with $ref"):
 * a `$ref` is a relative path to a JSON file, resolved from the file that holds it, and
 * must stay within the project root (the folder of docs.json). URLs, absolute paths and
 * `..` past that root are refused rather than read.
 */
export function refTarget(fromFile: string, ref: string, docsRoot: string): RefTarget {
  if (ref.length > LIMITS.maxPathLength || ref.includes('\0')) return { ok: false, reason: 'is not a usable path' };
  if (URL_SCHEME.test(ref)) return { ok: false, reason: 'is a URL; Mintlify reads only relative file paths' };
  if (ref.startsWith('/') || ref.startsWith('\\')) return { ok: false, reason: 'is absolute; Mintlify reads only relative file paths' };
  const target = path.posix.normalize(path.posix.join(path.posix.dirname(fromFile), ref));
  const inside = docsRoot === '' ? !(target === '..' || target.startsWith('../')) : target.startsWith(`${docsRoot}/`);
  if (!inside) return { ok: false, reason: 'climbs out of the docs root' };
  if (!target.toLowerCase().endsWith('.json')) return { ok: false, reason: 'is not a .json file' };
  return { ok: true, path: target };
}

/** The `$ref` string of an object written `{"$ref": "…"}` (sibling keys allowed), else undefined. */
export function refOf(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const ref = (value as Record<string, unknown>)['$ref'];
  return typeof ref === 'string' ? ref : undefined;
}

/**
 * Reads the config and every file its `$ref`s reach, breadth first. Files not yet in
 * `texts` are returned as `needs`; once all are there, every `$ref` problem is reported
 * in the file that holds it: unreadable target, bad path, cycle (Mintlify fails the
 * build on one), and the caps.
 */
export function loadConfigFiles(configPath: string, docsRoot: string, texts: ReadonlyMap<string, string | null>): ConfigFiles {
  const files = new Map<string, LoadedFile>();
  const order: string[] = [];
  const problems = new ProblemSink(configPath, LIMITS.maxProblems);
  const needs = new Set<string>();
  const edges = new Map<string, Array<{ target: string; ref: string; line: number | undefined }>>();
  const depthOf = new Map<string, number>([[configPath, 0]]);
  const missing = new Set<string>();
  let totalChars = 0;
  let capReported = false;
  const queue = [configPath];
  // The loop visits the files it appends too.
  for (const file of queue) {
    if (!texts.has(file)) {
      needs.add(file);
      continue;
    }
    const text = texts.get(file);
    if (typeof text !== 'string') {
      missing.add(file);
      if (file === configPath) problems.push({ path: file, kind: 'navigation', message: `${file} does not exist or could not be read.` });
      continue;
    }
    const lines = new JsonStringLines(text);
    let document = parseJsonDocument(file, text, { maxChars: LIMITS.maxFileChars, maxDepth: LIMITS.maxJsonDepth });
    if (document.ok && totalChars + text.length > LIMITS.maxTotalChars) {
      document = {
        ok: false,
        problem: { path: file, kind: 'limit', message: `The site configuration files together pass ${LIMITS.maxTotalChars} characters; ${file} was not read.` },
      };
    }
    files.set(file, { path: file, value: document.ok ? document.value : undefined, parsed: document.ok, lines });
    order.push(file);
    if (!document.ok) {
      problems.push(document.problem);
      continue;
    }
    totalChars += text.length;
    const fileEdges: Array<{ target: string; ref: string; line: number | undefined }> = [];
    edges.set(file, fileEdges);
    for (const ref of refsInOrder(document.value)) {
      const line = lines.lineOf(ref);
      const target = refTarget(file, ref, docsRoot);
      if (!target.ok) {
        problems.push({ path: file, kind: 'navigation', message: `$ref "${clip(ref)}" ${target.reason}.` }, line);
        continue;
      }
      const depth = depthOf.get(file)! + 1;
      if (depth > LIMITS.maxRefDepth) {
        problems.push(
          { path: file, kind: 'limit', message: `$ref "${clip(ref)}" is nested more than ${LIMITS.maxRefDepth} files deep; it was not followed.` },
          line,
        );
        continue;
      }
      if (!depthOf.has(target.path)) {
        if (depthOf.size >= LIMITS.maxFiles) {
          if (!capReported)
            problems.push(
              {
                path: file,
                kind: 'limit',
                message: `The site configuration pulls in more than ${LIMITS.maxFiles} files with $ref; "${clip(ref)}" and later ones were not read.`,
              },
              line,
            );
          capReported = true;
          continue;
        }
        depthOf.set(target.path, depth);
        queue.push(target.path);
      }
      fileEdges.push({ target: target.path, ref, line });
    }
  }
  if (needs.size > 0) return { done: false, needs: [...needs] };
  for (const [file, fileEdges] of edges) {
    for (const edge of fileEdges) {
      if (missing.has(edge.target)) {
        problems.push(
          { path: file, kind: 'navigation', message: `$ref "${clip(edge.ref)}" points to ${edge.target}, which does not exist or could not be read.` },
          edge.line,
        );
      }
    }
  }
  for (const cycle of cycleProblems(configPath, edges)) problems.push(cycle);
  return { done: true, files, order, problems };
}

/**
 * Each `$ref` that closes a cycle, found by an iterative depth-first search over the
 * file graph (at most `maxFiles` nodes): Mintlify fails the build on a circular reference.
 */
function cycleProblems(start: string, edges: ReadonlyMap<string, ReadonlyArray<{ target: string; ref: string; line: number | undefined }>>): DocsProblem[] {
  const problems: DocsProblem[] = [];
  const state = new Map<string, 'open' | 'closed'>();
  const trail: string[] = [];
  const reported = new Set<string>();
  const stack: Array<{ file: string; next: number }> = [{ file: start, next: 0 }];
  state.set(start, 'open');
  trail.push(start);
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    const out = edges.get(frame.file) ?? [];
    if (frame.next >= out.length) {
      state.set(frame.file, 'closed');
      stack.pop();
      trail.pop();
      continue;
    }
    const edge = out[frame.next]!;
    frame.next += 1;
    const seen = state.get(edge.target);
    const pair = `${frame.file}\n${edge.target}`;
    // One report per pair of files: a file repeating the same $ref 100,000 times is one mistake.
    if (seen === 'open' && !reported.has(pair)) {
      reported.add(pair);
      const loop = [...trail.slice(trail.indexOf(edge.target)), edge.target].join(' → ');
      problems.push(
        withLine(
          {
            path: frame.file,
            kind: 'navigation',
            message: `$ref "${clip(edge.ref)}" makes a cycle (${loop}); Mintlify fails the build on circular references.`,
          },
          edge.line,
        ),
      );
    } else if (seen === undefined) {
      state.set(edge.target, 'open');
      trail.push(edge.target);
      stack.push({ file: edge.target, next: 0 });
    }
  }
  return problems;
}

/** Every `$ref` string in a parsed document, in document order (iterative: no recursion on hostile depth). */
function refsInOrder(document: unknown): string[] {
  const refs: string[] = [];
  const stack: unknown[] = [document];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== 'object') continue;
    const children = Array.isArray(node) ? node : Object.values(node as Record<string, unknown>);
    const ref = refOf(node);
    if (ref !== undefined) refs.push(ref);
    for (let index = children.length - 1; index >= 0; index -= 1) stack.push(children[index]);
  }
  return refs;
}

export function withLine(problem: DocsProblem, line: number | undefined): DocsProblem {
  if (line !== undefined) problem.line = line;
  return problem;
}

/** Repository text quoted in a message is cut short, so a megabyte-long value stays out of reports. */
export function clip(value: string): string {
  return value.length > 200 ? `${value.slice(0, 200)}…` : value;
}
