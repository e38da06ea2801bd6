import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * The first file matching one of `patterns` (`PREFIX*.ts` in `root`, or `DIR/*.ts` one
 * level down) that exports a function `name`. Files are read as text before anything is
 * imported: some bench files are child-process entry points that start servers when
 * loaded. Only those places are listed, never bench/.data, where other runs are busy.
 */
export async function findExportedFunction<T>(root: string, patterns: readonly string[], name: string): Promise<T | undefined> {
  const exported = new RegExp(`export\\s+(async\\s+)?function\\s+${name}\\b|export\\s*\\{[^}]*\\b${name}\\b`);
  for (const pattern of patterns) {
    const slash = pattern.lastIndexOf('/');
    const directory = join(root, pattern.slice(0, Math.max(0, slash)));
    const prefix = pattern.slice(slash + 1, pattern.indexOf('*'));
    if (!existsSync(directory)) continue;
    const files = readdirSync(directory)
      .filter((file) => file.startsWith(prefix) && file.endsWith('.ts'))
      .sort();
    for (const file of files) {
      const path = join(directory, file);
      if (!exported.test(readFileSync(path, 'utf8'))) continue;
      const loaded = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
      if (typeof loaded[name] === 'function') return loaded[name] as T;
    }
  }
  return undefined;
}
