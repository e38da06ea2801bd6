import { spawn } from 'node:child_process';
import { DocwrightError } from '../core/errors.js';
import { gitAuthorizationHeader, secretSpellings, type GitAuth } from './git-auth.js';
import { redactSecrets } from './redact.js';

export interface RunGitOptions {
  /** Working directory; also what git uses to find the repository. */
  cwd: string;
  /** Kill git (and its helpers) after this long. Default 120 s. */
  timeoutMs?: number;
  /** Stop keeping stdout beyond this many bytes; `truncated` tells. Default 16 MiB. */
  maxOutputBytes?: number;
  /** Sent as an HTTP Authorization header through environment config, never argv. */
  auth?: GitAuth | null;
  /** Exit codes that are answers rather than failures (e.g. 1 for `diff --quiet`). */
  allowedExitCodes?: readonly number[];
  /** Extra environment, e.g. author identity. Keys must not start with GIT_CONFIG. */
  env?: Readonly<Record<string, string>>;
  /** Written to git's stdin, which is then closed (e.g. `update-ref --stdin`); default no stdin. */
  input?: string;
}

export interface GitResult {
  stdout: string;
  stderr: string;
  exitCode: number;
  truncated: boolean;
}

const DEFAULT_TIMEOUT_MS = 120_000;
const DEFAULT_MAX_OUTPUT_BYTES = 16 * 1024 * 1024;
const MAX_STDERR_BYTES = 64 * 1024;

/** Variables a git child may inherit: what it needs to find programs, temp space and proxies. */
const INHERITED = new Set([
  'PATH',
  'HOME',
  'TMPDIR',
  'USER',
  'LOGNAME',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'ALL_PROXY',
  'NO_PROXY',
  'http_proxy',
  'https_proxy',
  'all_proxy',
  'no_proxy',
]);

/**
 * Config pinned for every git run. Command-scope config beats the repository's own
 * `.git/config`, so even a tampered repository cannot run hooks, an fsmonitor command or a
 * credential helper, and signing can never block on a passphrase prompt.
 */
const PINNED_CONFIG: ReadonlyArray<readonly [string, string]> = [
  ['core.hooksPath', '/dev/null'],
  ['core.fsmonitor', 'false'],
  ['credential.helper', ''],
  ['commit.gpgSign', 'false'],
  ['tag.gpgSign', 'false'],
  ['protocol.ext.allow', 'never'],
  ['advice.detachedHead', 'false'],
  ['init.defaultBranch', 'main'],
  ['gc.auto', '0'],
];

export function gitEnvironment(auth: GitAuth | null | undefined, extra: Readonly<Record<string, string>> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (INHERITED.has(key) && value !== undefined) env[key] = value;
  }
  const config: Array<readonly [string, string]> = [...PINNED_CONFIG];
  if (auth) {
    config.push(['http.extraHeader', gitAuthorizationHeader(auth)]);
    // git sends extraHeader to wherever a redirect of the first request moved the remote,
    // another host included: with a credential, redirects are not followed at all.
    config.push(['http.followRedirects', 'false']);
  }
  Object.assign(env, {
    LANG: 'C',
    LC_ALL: 'C',
    GIT_TERMINAL_PROMPT: '0',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_OPTIONAL_LOCKS: '0',
    GIT_CONFIG_COUNT: String(config.length),
  });
  config.forEach(([key, value], index) => {
    env[`GIT_CONFIG_KEY_${index}`] = key;
    env[`GIT_CONFIG_VALUE_${index}`] = value;
  });
  for (const [key, value] of Object.entries(extra)) {
    // Letting a caller override the config slots would let it drop the pinned config.
    if (key.startsWith('GIT_CONFIG')) throw new Error(`runGit: refusing to override ${key}`);
    env[key] = value;
  }
  return env;
}

/** Runs `git ARGS` without a shell. Resolves on an allowed exit code, else throws `git_failed`. */
export function runGit(args: readonly string[], options: RunGitOptions): Promise<GitResult> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxOutputBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  const allowed = options.allowedExitCodes ?? [0];
  const secrets = secretSpellings(options.auth);
  const subcommand = args.find((arg) => !arg.startsWith('-')) ?? 'git';

  return new Promise<GitResult>((resolve, reject) => {
    const child = spawn('git', [...args], {
      cwd: options.cwd,
      env: gitEnvironment(options.auth, options.env),
      stdio: ['pipe', 'pipe', 'pipe'],
      // Own process group, so a timeout also stops git-remote-https and friends.
      detached: true,
    });

    // Without input, stdin ends at once: git reads nothing, as from /dev/null. A git that
    // exits before reading all of it closes the pipe: its exit code tells, not EPIPE.
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input);

    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let stdoutBytes = 0;
    let stderrBytes = 0;
    let truncated = false;
    let timedOut = false;

    child.stdout.on('data', (chunk: Buffer) => {
      if (stdoutBytes >= maxOutputBytes) {
        truncated = true;
        return;
      }
      const room = maxOutputBytes - stdoutBytes;
      if (chunk.length > room) truncated = true;
      const kept = chunk.length > room ? chunk.subarray(0, room) : chunk;
      stdout.push(kept);
      stdoutBytes += kept.length;
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (stderrBytes >= MAX_STDERR_BYTES) return;
      const kept = chunk.subarray(0, MAX_STDERR_BYTES - stderrBytes);
      stderr.push(kept);
      stderrBytes += kept.length;
    });

    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, timeoutMs);

    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new DocwrightError('git_failed', `git ${subcommand} could not start: ${redactSecrets(error.message, secrets)}`, { status: 500 }));
    });

    child.once('close', (code, signal) => {
      clearTimeout(timer);
      const errorText = Buffer.concat(stderr).toString('utf8');
      const exitCode = code ?? -1;
      if (timedOut) {
        reject(gitFailed(`git ${subcommand} timed out after ${timeoutMs} ms`, errorText, secrets));
        return;
      }
      if (signal !== null || !allowed.includes(exitCode)) {
        const how = signal !== null ? `was killed by ${signal}` : `failed (exit ${exitCode})`;
        reject(gitFailed(`git ${subcommand} ${how}`, errorText, secrets, exitCode));
        return;
      }
      resolve({ stdout: Buffer.concat(stdout).toString('utf8'), stderr: errorText, exitCode, truncated });
    });
  });
}

/** A failed git run; `stderr` is kept (redacted) so callers can recognise specific failures. */
export class GitCommandError extends DocwrightError {
  readonly stderr: string;
  readonly exitCode: number;

  constructor(message: string, stderr: string, exitCode: number) {
    super('git_failed', message, { status: 502 });
    this.stderr = stderr;
    this.exitCode = exitCode;
  }
}

/** Git's own wording for a refused or missing credential, which is puzzling without context. */
const AUTH_FAILURE = /could not read (?:Username|Password)|Authentication failed|HTTP 40[13]|returned error: 40[13]/i;
const REDIRECTED = /returned error: 30[12378]\b/;

function gitFailed(summary: string, stderr: string, secrets: readonly string[], exitCode = -1): GitCommandError {
  const clean = redactSecrets(stderr.trim(), secrets);
  const hint = AUTH_FAILURE.test(clean)
    ? " (the git remote refused or required credentials; check the project's forge credentials)"
    : REDIRECTED.test(clean)
      ? ' (the git remote redirected elsewhere; credentials are never sent after a redirect, so configure the final address of the repository)'
      : '';
  const message = clean.length > 0 ? `${summary}${hint}: ${clean.slice(-4000)}` : `${summary}${hint}`;
  return new GitCommandError(message, clean, exitCode);
}

function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}
