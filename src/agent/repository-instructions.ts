import { open } from 'node:fs/promises';
import { createRedactor, isToolFailure, resolveInWorkspace } from './tools/index.js';
// READ_FLAGS: the tools' own open flags (no link swapped in after resolution, no FIFO hang).
import { looksBinary, READ_FLAGS } from './tools/text-file.js';

/**
 * The files a repository can give its agents standing guidance in, most specific first.
 * The first usable one is taken, alone (as Mintlify's agent takes the most specific of its
 * two places): a Docwright-only file overrides the Mintlify one, which overrides the
 * generic AGENTS.md that other coding agents read too. One file, not all of them joined,
 * so the model never has to reconcile two repositories' worth of contradicting advice.
 */
export const REPOSITORY_INSTRUCTION_FILES = ['.docwright/instructions.md', '.mintlify/AGENTS.md', '.mintlify/Agents.md', 'AGENTS.md', 'Agents.md'] as const;

/** Default cap on the file's text in the system prompt: 32 KiB, as Codex caps AGENTS.md. */
export const DEFAULT_REPOSITORY_INSTRUCTIONS_MAX_BYTES = 32_768;

export const TRUNCATED_MARKER = '[truncated]';

export interface RepositoryInstructions {
  /** Workspace-relative path of the file used. */
  path: string;
  /** The text for the prompt: redacted, cut to the cap on a character boundary, marker included. */
  text: string;
  /** The file's size on disk. */
  bytes: number;
  truncated: boolean;
}

export interface IgnoredInstructionFile {
  path: string;
  reason: 'symlink_outside_workspace' | 'broken_symlink' | 'not_a_file' | 'binary' | 'not_utf8' | 'empty' | 'unreadable';
}

export interface InstructionsLookup {
  /** Null when no candidate exists or none is usable. */
  found: RepositoryInstructions | null;
  /** Candidates that exist but were passed over, in the order they were looked at. */
  ignored: IgnoredInstructionFile[];
}

export interface ReadInstructionsOptions {
  /** Cap on the text's UTF-8 bytes; 0 reads nothing. */
  maxBytes: number;
  /** Credential values to mask, as tool results mask them. */
  secrets: readonly string[];
}

// Read past the cap by this much, so a credential straddling the cut is still masked whole.
const REDACTION_MARGIN_BYTES = 4_096;

/**
 * The repository's standing instructions for the agent, read from a checked-out workspace.
 * The workspace is hostile: paths go through the tools' resolver, so a link is followed only
 * when it stays inside the workspace and out of .git; links leading out, broken links,
 * directories, devices, binary and non-UTF-8 files are passed over (and listed in
 * `ignored`). Never throws for anything the repository contains.
 */
export async function readRepositoryInstructions(workspace: string, options: ReadInstructionsOptions): Promise<InstructionsLookup> {
  const ignored: IgnoredInstructionFile[] = [];
  if (options.maxBytes <= 0) return { found: null, ignored };
  for (const candidate of REPOSITORY_INSTRUCTION_FILES) {
    const outcome = await readCandidate(workspace, candidate, options);
    if (outcome === null) continue;
    if ('reason' in outcome) ignored.push(outcome);
    else return { found: outcome, ignored };
  }
  return { found: null, ignored };
}

async function readCandidate(
  workspace: string,
  candidate: string,
  options: ReadInstructionsOptions,
): Promise<RepositoryInstructions | IgnoredInstructionFile | null> {
  const ignore = (reason: IgnoredInstructionFile['reason']): IgnoredInstructionFile => ({ path: candidate, reason });
  let absolute: string;
  try {
    const resolved = await resolveInWorkspace(workspace, candidate);
    if (resolved.kind === 'missing') return null;
    if (resolved.kind !== 'file') return ignore('not_a_file');
    // The resolver follows no symbolic link, not even one staying inside (AGENTS.md -> CLAUDE.md):
    // it is passed over as not a file. A job's clone has none (core.symlinks=false).
    absolute = resolved.absolute;
  } catch (error) {
    // Refused by the resolver: told apart by its messages (reasons only; the file is passed over either way).
    if (!isToolFailure(error)) return ignore('unreadable');
    if (/outside the workspace|into \.git/.test(error.message)) return ignore('symlink_outside_workspace');
    if (error.message.includes('target does not exist')) return ignore('broken_symlink');
    return ignore('not_a_file');
  }
  let bytes: Buffer;
  let size: number;
  try {
    ({ bytes, size } = await readPrefix(absolute, options.maxBytes + REDACTION_MARGIN_BYTES));
  } catch (error) {
    return ignore((error as NodeJS.ErrnoException).code === 'NOT_A_FILE' ? 'not_a_file' : 'unreadable');
  }
  if (looksBinary(bytes)) return ignore('binary');
  const complete = bytes.length >= size;
  const decoded = decodePrefix(bytes, complete);
  if (decoded === undefined) return ignore('not_utf8');
  const redacted = createRedactor(options.secrets)(decoded);
  const { text, cut } = cutToBytes(redacted, options.maxBytes);
  const truncated = cut || !complete;
  const body = text.trim();
  if (body === '' && !truncated) return ignore('empty');
  return { path: candidate, text: truncated ? `${body}\n${TRUNCATED_MARKER}` : body, bytes: size, truncated };
}

/** At most `limit` bytes from the start of a regular file, and the file's size. */
async function readPrefix(absolute: string, limit: number): Promise<{ bytes: Buffer; size: number }> {
  const handle = await open(absolute, READ_FLAGS);
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) throw Object.assign(new Error('not a regular file'), { code: 'NOT_A_FILE' });
    const buffer = Buffer.alloc(Math.min(limit, stats.size));
    let filled = 0;
    while (filled < buffer.length) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return { bytes: buffer.subarray(0, filled), size: stats.size };
  } finally {
    await handle.close();
  }
}

/**
 * Strict UTF-8 decoding of a file's start. A prefix may end inside a character, so up to
 * three trailing bytes of an unfinished sequence are dropped first; anything else invalid
 * makes the file not UTF-8. A leading byte-order mark is dropped.
 */
function decodePrefix(bytes: Buffer, complete: boolean): string | undefined {
  const end = complete ? bytes.length : characterBoundary(bytes, bytes.length);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, end));
  } catch {
    return undefined;
  }
}

/** The largest index ≤ `limit` that does not fall inside a UTF-8 sequence. */
function characterBoundary(bytes: Uint8Array, limit: number): number {
  let index = Math.min(limit, bytes.length);
  // Step back over continuation bytes (10xxxxxx) to the sequence's lead byte, at most 3.
  let back = 0;
  while (index > 0 && back < 3 && ((bytes[index - 1] ?? 0) & 0xc0) === 0x80) {
    index -= 1;
    back += 1;
  }
  if (index === 0) return 0;
  const lead = bytes[index - 1] ?? 0;
  const length = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  // The lead's sequence fits before the limit: the limit itself is a boundary.
  return index - 1 + length <= limit ? limit : index - 1;
}

/** The text cut to at most `maxBytes` UTF-8 bytes, never inside a character. */
function cutToBytes(text: string, maxBytes: number): { text: string; cut: boolean } {
  const encoded = Buffer.from(text, 'utf8');
  if (encoded.length <= maxBytes) return { text, cut: false };
  return { text: encoded.subarray(0, characterBoundary(encoded, maxBytes)).toString('utf8'), cut: true };
}

/** What a turn's event says of the lookup: the file used (not its text) and, when any, the files passed over. */
export function instructionsSummary(lookup: InstructionsLookup): {
  instructions: { path: string; bytes: number; truncated: boolean } | null;
  instructionsIgnored?: IgnoredInstructionFile[];
} {
  const { found, ignored } = lookup;
  return {
    instructions: found === null ? null : { path: found.path, bytes: found.bytes, truncated: found.truncated },
    ...(ignored.length > 0 ? { instructionsIgnored: ignored } : {}),
  };
}
