import { readFileSync } from 'node:fs';
import { validationFailed } from '../core/errors.js';
import type { ForgeCredentials } from '../git/forges/forge.js';

export interface CredentialOptions {
  tokenFile?: string;
  tokenStdin?: boolean;
  githubAppId?: string;
  githubAppKeyFile?: string;
  githubInstallationId?: string;
}

function readSecretFile(path: string, option: string): string {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch (error) {
    throw validationFailed('The credentials cannot be read.', [
      { path: option, message: `cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? 'error'}` },
    ]);
  }
}

/**
 * Forge credentials from CLI options. Tokens are read from a file or standard input, never
 * from an argument, so they do not end up in shell history or `ps`.
 */
export function credentialsFromOptions(options: CredentialOptions, stdin: () => string): ForgeCredentials | null {
  const app = options.githubAppId !== undefined || options.githubAppKeyFile !== undefined || options.githubInstallationId !== undefined;
  const sources = [options.tokenFile !== undefined, options.tokenStdin === true, app].filter(Boolean).length;
  if (sources === 0) return null;
  if (sources > 1)
    throw validationFailed('Choose one kind of credentials.', [
      { path: 'credentials', message: 'use --token-file, --token-stdin or the --github-app-* options, not several' },
    ]);
  if (app) {
    const missing = [
      ['--github-app-id', options.githubAppId],
      ['--github-app-key-file', options.githubAppKeyFile],
      ['--github-installation-id', options.githubInstallationId],
    ].filter(([, value]) => !value);
    if (missing.length > 0)
      throw validationFailed(
        'A GitHub App needs its id, private key and installation id.',
        missing.map(([path]) => ({ path: path!, message: 'is required' })),
      );
    const privateKey = readSecretFile(options.githubAppKeyFile!, '--github-app-key-file');
    if (!privateKey.includes('PRIVATE KEY'))
      throw validationFailed('The GitHub App key is not valid.', [{ path: '--github-app-key-file', message: 'must be a PEM private key' }]);
    return { appId: options.githubAppId!, privateKey, installationId: options.githubInstallationId! };
  }
  const token = options.tokenFile !== undefined ? readSecretFile(options.tokenFile, '--token-file') : stdin().trim();
  if (token.length < 8 || /\s/.test(token))
    throw validationFailed('The token is not valid.', [{ path: 'token', message: 'must be at least 8 characters without spaces' }]);
  return { token };
}
