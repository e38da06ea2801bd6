import { tmpdir } from 'node:os';
import type { GitAuth } from './git-auth.js';
import { validateRefName } from './ref-name.js';
import { validateRemoteUrl } from './remote-url.js';
import { runGit } from './run-git.js';

export interface RemoteQueryOptions {
  timeoutMs?: number;
}

/** Whether `refs/heads/BRANCH` exists on the remote; a follow-up turn continues there. */
export async function remoteBranchExists(remoteUrl: string, branch: string, auth?: GitAuth | null, options: RemoteQueryOptions = {}): Promise<boolean> {
  return (await remoteBranchCommit(remoteUrl, branch, auth, options)) !== null;
}

/** The commit `refs/heads/BRANCH` points at on the remote, or null when there is no such branch. */
export async function remoteBranchCommit(remoteUrl: string, branch: string, auth?: GitAuth | null, options: RemoteQueryOptions = {}): Promise<string | null> {
  const url = validateRemoteUrl(remoteUrl);
  const name = validateRefName(branch, 'branch');
  const fullName = `refs/heads/${name}`;
  const result = await runGit(['ls-remote', '--heads', '--exit-code', '--', url, fullName], {
    // Outside any repository, so the caller's working directory cannot influence the query.
    cwd: tmpdir(),
    auth: auth ?? null,
    timeoutMs: options.timeoutMs ?? 60_000,
    allowedExitCodes: [0, 2],
  });
  // ls-remote matches patterns by suffix; only an exact name counts.
  for (const line of result.stdout.split('\n')) {
    const [commit, ref] = line.split('\t');
    if (ref === fullName && commit !== undefined && commit.length > 0) return commit;
  }
  return null;
}
