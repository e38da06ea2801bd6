import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');
const WEB = join(ROOT, 'web');
const INDEX = join(WEB, 'dist', 'index.html');

function newestSource(path: string): number {
  const stats = statSync(path);
  if (!stats.isDirectory()) return stats.mtimeMs;
  let newest = stats.mtimeMs;
  for (const name of readdirSync(path)) {
    if (name === 'dist' || name === 'node_modules') continue;
    newest = Math.max(newest, newestSource(join(path, name)));
  }
  return newest;
}

/**
 * Builds web/dist when it is missing or older than a file under web/, once per test run
 * (from the global setup), so the browser tests never run against a stale dashboard.
 */
export function ensureDashboardBuilt(): void {
  if (existsSync(INDEX) && statSync(INDEX).mtimeMs >= newestSource(WEB)) return;
  execFileSync(process.execPath, [join(ROOT, 'scripts', 'build-dashboard.mjs'), '--quiet'], { cwd: ROOT, stdio: 'inherit' });
}
