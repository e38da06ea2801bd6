/**
 * How git authenticates to a remote over HTTP. The credential only ever travels in an
 * `Authorization` header handed to git through environment config, so it never lands in
 * a remote URL, an argv (visible in `ps`) or a repository's `.git/config`.
 */
export interface GitAuth {
  username: string;
  password: string;
}

/** The `http.extraHeader` value git sends with every request to the remote. */
export function gitAuthorizationHeader(auth: GitAuth): string {
  return `Authorization: Basic ${basicCredentials(auth)}`;
}

export function basicCredentials(auth: GitAuth): string {
  return Buffer.from(`${auth.username}:${auth.password}`, 'utf8').toString('base64');
}

/** Every spelling of the secret that could show up in output and must be masked. */
export function secretSpellings(auth: GitAuth | null | undefined): string[] {
  if (!auth || auth.password.length === 0) return [];
  return [auth.password, basicCredentials(auth), encodeURIComponent(auth.password)];
}
