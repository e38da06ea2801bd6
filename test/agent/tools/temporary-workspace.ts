import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * A scratch directory holding a workspace and, beside it, an `outside` directory with a
 * file the tools must never reach.
 */
export interface TemporaryWorkspace {
  base: string;
  workspace: string;
  outside: string;
  /** Writes a file at a workspace-relative path, creating directories. */
  put(relativePath: string, content: string | Buffer): Promise<void>;
  /** Creates a symbolic link at a workspace-relative path. */
  link(relativePath: string, target: string): Promise<void>;
  remove(): Promise<void>;
}

export const OUTSIDE_SECRET = 'outside-content-that-must-never-be-read';

export async function createTemporaryWorkspace(): Promise<TemporaryWorkspace> {
  const base = await mkdtemp(path.join(tmpdir(), 'docwright-tools-'));
  const workspace = path.join(base, 'workspace');
  const outside = path.join(base, 'outside');
  await mkdir(path.join(workspace, '.git'), { recursive: true });
  await mkdir(outside, { recursive: true });
  await writeFile(path.join(workspace, '.git', 'config'), '[core]\n\trepositoryformatversion = 0\n');
  await writeFile(path.join(outside, 'secret.txt'), OUTSIDE_SECRET);
  const put = async (relativePath: string, content: string | Buffer): Promise<void> => {
    const target = path.join(workspace, relativePath);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, content);
  };
  const link = async (relativePath: string, target: string): Promise<void> => {
    const at = path.join(workspace, relativePath);
    await mkdir(path.dirname(at), { recursive: true });
    await symlink(target, at);
  };
  return { base, workspace, outside, put, link, remove: () => rm(base, { recursive: true, force: true }) };
}
