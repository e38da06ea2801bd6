const WILDCARDS = new Set(['0.0.0.0', '::', '']);

/**
 * The public URL a server derives from where it listens, when DOCWRIGHT_PUBLIC_URL is
 * unset: a wildcard address becomes `localhost` (what a browser on this machine opens) and
 * an IPv6 address is bracketed.
 */
export function derivePublicUrl(host: string, port: number): string {
  const name = WILDCARDS.has(host) ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `http://${name}:${port}`;
}
