import type { ProjectSettings } from '../../projects/project.js';

/**
 * The hosts a Web Bot Auth signature must have been made for to verify a hit to the
 * project's site: its `@authority` is compared with them (docs/classification.md, Web Bot
 * Auth). The project setting `siteHosts` names them; without it, the hosts of
 * `allowedOrigins` (the site's own pages send the beacon, so they are the site). Null when
 * the project names neither: a signature then proves nothing about this site.
 */
export function siteAuthorities(settings: Pick<ProjectSettings, 'siteHosts' | 'allowedOrigins'>): string[] | null {
  const hosts = new Set<string>();
  for (const host of settings.siteHosts ?? []) hosts.add(normaliseAuthority(host));
  if (hosts.size === 0) {
    for (const origin of settings.allowedOrigins ?? []) {
      const host = originHost(origin);
      if (host !== null) hosts.add(host);
    }
  }
  return hosts.size === 0 ? null : [...hosts];
}

/** Lowercase, without a default port: `Docs.Example.com:443` and `docs.example.com` are one site. */
export function normaliseAuthority(authority: string): string {
  return authority
    .trim()
    .toLowerCase()
    .replace(/:(443|80)$/, '');
}

function originHost(origin: string): string | null {
  try {
    const url = new URL(origin);
    return url.protocol === 'https:' || url.protocol === 'http:' ? normaliseAuthority(url.host) : null;
  } catch {
    return null; // "*" and other non-URLs name no host
  }
}
