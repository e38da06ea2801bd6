/**
 * The project setting `siteHosts` as the settings form edits it: one host per line (commas
 * and spaces separate too). The check mirrors the server's (src/projects/project-input.ts):
 * a host name of letters, digits, dots and hyphens, optionally `:port`, at most 255
 * characters. How many hosts a project may name (100) is the server's limit; its 400 is
 * shown on the field like any other problem.
 */
const HOST = /^[A-Za-z0-9.-]+(:\d{1,5})?$/;

export function parseSiteHosts(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((host) => host.trim())
    .filter(Boolean);
}

/** The first host the server would refuse, with why; null when every host is well-formed. */
export function siteHostsProblem(hosts: readonly string[]): string | null {
  for (const host of hosts) {
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(host)) return `“${host}”: write the host alone, without the scheme (docs.example.com)`;
    if (host.length > 255) return `“${host.slice(0, 40)}…”: must be at most 255 characters`;
    if (!HOST.test(host)) return `“${host}”: must be a host name, optionally with :port (docs.example.com)`;
  }
  return null;
}

/** The server's message for the field: on the list itself or on one of its entries (settings.siteHosts.3). */
export function siteHostsFieldError(fields: Record<string, string>): string | undefined {
  const path = Object.keys(fields).find((key) => key === 'settings.siteHosts' || key.startsWith('settings.siteHosts.'));
  return path === undefined ? undefined : fields[path];
}
