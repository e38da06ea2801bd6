import { randomBytes } from 'node:crypto';
import { linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensurePrivateDirectory } from '../core/private-files.js';

const SECRET_FILE = 'secret';

/**
 * Returns the instance secret: the configured one, or the one generated into the data
 * dir on first run. The secret is written whole to a private file first and then linked
 * into place, which fails if the file exists: two processes starting together agree on
 * one secret, and neither can read the other's half-written file.
 */
export function resolveInstanceSecret(dataDir: string, configured: string | undefined): string {
  if (configured) return configured;
  ensurePrivateDirectory(dataDir, { narrow: false });
  const file = join(dataDir, SECRET_FILE);
  const draft = `${file}.${process.pid}.${randomBytes(6).toString('hex')}`;
  writeFileSync(draft, randomBytes(32).toString('base64url') + '\n', { flag: 'wx', mode: 0o600 });
  try {
    linkSync(draft, file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    rmSync(draft, { force: true });
  }
  const secret = readFileSync(file, 'utf8').trim();
  if (secret.length < 32) {
    throw new Error(`${file} holds a secret shorter than 32 characters; delete it to generate a new one, or set DOCWRIGHT_SECRET.`);
  }
  return secret;
}
