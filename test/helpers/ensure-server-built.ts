import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = join(import.meta.dirname, '..', '..');

/**
 * Builds dist/ when it is missing or older than a file under src/, once per test run (from
 * the global setup): tests import src/ directly, but every test that spawns
 * bin/docwright.js runs the compiled build, which must be the current sources'.
 */
export function ensureServerBuilt(): void {
  execFileSync(process.execPath, [join(ROOT, 'scripts', 'build-server.mjs'), '--if-stale', '--quiet'], { cwd: ROOT, stdio: 'inherit' });
}
