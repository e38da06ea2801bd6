import { createHash } from 'node:crypto';
import { openDecodedFileStream } from './log-file-stream.js';

/** How much of the start of a file names it. */
export const IDENTITY_WINDOW_BYTES = 4096;

/**
 * A name for a log's content that does not depend on where the file is or what it is
 * called: a hash of its first (decompressed) bytes, up to the last complete line in the
 * first IDENTITY_WINDOW_BYTES. Therefore
 * - importing the same file twice gives the same identity, so hit ids repeat and the
 *   server counts each request once;
 * - a log that logrotate later renames and compresses (`access.log.1` → `access.log.2.gz`)
 *   keeps its identity;
 * - a log that is still growing keeps its identity once it is past the window, because
 *   its beginning no longer changes (the size is deliberately not part of it).
 * Distinct logs start with distinct timestamps, addresses and requests, so a window of
 * a dozen lines is plenty to tell them apart.
 */
export async function readContentIdentity(file: string): Promise<string> {
  const { source, content } = await openDecodedFileStream(file);
  const parts: Buffer[] = [];
  let length = 0;
  try {
    for await (const chunk of content) {
      const buffer = chunk as Buffer;
      parts.push(buffer);
      length += buffer.length;
      if (length >= IDENTITY_WINDOW_BYTES) break;
    }
  } finally {
    content.destroy();
    source.destroy();
  }
  let window = Buffer.concat(parts).subarray(0, IDENTITY_WINDOW_BYTES);
  const lastNewline = window.lastIndexOf(0x0a);
  if (lastNewline >= 0) window = window.subarray(0, lastNewline + 1);
  return createHash('sha256').update(window).digest('hex').slice(0, 24);
}

/** A hit's id: stable across runs of the same import, unique per line of a log. */
export function hitId(contentIdentity: string, lineNumber: number): string {
  return `${contentIdentity}-${lineNumber}`;
}
