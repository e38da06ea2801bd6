import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { ToolFailure } from './tool-failure.js';
import { withFileSystemErrors } from './file-system-failure.js';

// Without O_NOFOLLOW a link swapped in after resolution would be followed; the resolved
// path is already symlink-free, this closes the window between checking and opening.
// O_NONBLOCK keeps a FIFO in the repository from hanging the open; it is refused below.
export const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;
const WRITE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW;
const BINARY_SNIFF_BYTES = 8000;

/** Reads raw bytes of a resolved, symlink-free path, refusing files above `maxBytes`. */
export async function readBytes(absolute: string, shown: string, maxBytes: number): Promise<Buffer> {
  return withFileSystemErrors(shown, async () => {
    const handle = await open(absolute, READ_FLAGS);
    try {
      const stats = await handle.stat();
      if (!stats.isFile()) throw new ToolFailure(`${shown} is not a regular file.`);
      if (stats.size > maxBytes) {
        throw new ToolFailure(`${shown} is ${stats.size} bytes, above the limit of ${maxBytes} bytes.`);
      }
      return await handle.readFile();
    } finally {
      await handle.close();
    }
  });
}

/** True when the start of the bytes holds a NUL, as binary files' do and text files' never do. */
export function looksBinary(bytes: Uint8Array): boolean {
  return bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0);
}

/** The same bytes in an array that owns its whole ArrayBuffer, so it can be transferred to a worker alone. */
export function ownBytes(bytes: Uint8Array): Uint8Array {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : new Uint8Array(bytes);
}

/** Decodes UTF-8 text, or returns undefined when the bytes look binary. */
export function decodeText(bytes: Buffer): string | undefined {
  if (looksBinary(bytes)) return undefined;
  try {
    // ignoreBOM keeps a byte-order mark in the text, so an edit writes it back unchanged.
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    return undefined;
  }
}

/** Reads a text file, refusing binary content and files above `maxBytes`. */
export async function readText(absolute: string, shown: string, maxBytes: number): Promise<string> {
  const text = decodeText(await readBytes(absolute, shown, maxBytes));
  if (text === undefined) throw new ToolFailure(`${shown} is a binary file; only text files can be read or edited.`);
  return text;
}

/** Writes text (or its UTF-8 bytes) to a resolved path without following a symbolic link at its last component. */
export async function writeText(absolute: string, shown: string, text: string | Uint8Array): Promise<void> {
  await withFileSystemErrors(shown, async () => {
    const handle = await open(absolute, WRITE_FLAGS, 0o644);
    try {
      await (typeof text === 'string' ? handle.writeFile(text, 'utf8') : handle.writeFile(text));
    } finally {
      await handle.close();
    }
  });
}
