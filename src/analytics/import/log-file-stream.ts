import { createReadStream, type ReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';

const GZIP_MAGIC = [0x1f, 0x8b] as const;

/** True when the file starts with the gzip magic bytes, whatever it is called (rotated logs are often `access.log.2` but compressed, or `.gz` but plain). */
export async function isGzipFile(file: string): Promise<boolean> {
  const handle = await open(file, 'r');
  try {
    const header = Buffer.alloc(2);
    const { bytesRead } = await handle.read(header, 0, 2, 0);
    return bytesRead === 2 && header[0] === GZIP_MAGIC[0] && header[1] === GZIP_MAGIC[1];
  } finally {
    await handle.close();
  }
}

export interface DecodedFileStream {
  /** The file's raw bytes, whose `bytesRead` measures progress (compressed bytes for gzip). */
  source: ReadStream;
  /** The decompressed content; the same stream as `source` for a plain file. */
  content: Readable;
  compressed: boolean;
}

/** Opens a log file for reading its decompressed content; concatenated gzip members (as `cat a.gz b.gz` makes) are read through. */
export async function openDecodedFileStream(file: string): Promise<DecodedFileStream> {
  const compressed = await isGzipFile(file);
  const source = createReadStream(file, { highWaterMark: 256 * 1024 });
  if (!compressed) return { source, content: source, compressed };
  const gunzip = createGunzip();
  source.on('error', (error) => gunzip.destroy(error));
  source.pipe(gunzip);
  return { source, content: gunzip, compressed };
}
