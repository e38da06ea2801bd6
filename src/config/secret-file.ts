import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const SECRET_FILE = 'secret';

/**
 * Returns the instance secret: the configured one, or the one generated into the data
 * dir on first run. Creation uses an exclusive open so two processes starting together
 * agree on one secret instead of overwriting each other's.
 */
export function resolveInstanceSecret(dataDir: string, configured: string | undefined): string {
  if (configured) return configured;
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, SECRET_FILE);
  try {
    writeFileSync(file, randomBytes(32).toString('base64url') + '\n', { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const secret = readFileSync(file, 'utf8').trim();
  if (secret.length < 32) {
    throw new Error(`${file} holds a secret shorter than 32 characters; delete it to generate a new one, or set DOCWRIGHT_SECRET.`);
  }
  return secret;
}
