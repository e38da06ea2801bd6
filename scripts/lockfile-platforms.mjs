#!/usr/bin/env node
// Checks and repairs the platform packages recorded in package-lock.json; used by
// scripts/refresh-lockfile.sh (see docs/dependencies.md for why it exists).
//
//   check  LOCK            list optional dependencies the lock does not record; exit 1 if any
//   prune  LOCK            drop packages with unrecorded optional dependencies, and the
//                          platform packages they do record, so npm resolves them afresh
//   pin    PKG PINS        add PINS (a JSON file { "name": "version" }) as npm overrides
//   advise LOCK            for each incomplete package, ask the registry which versions
//                          have every optional dependency published
//
// Plain Node (no dependencies): it runs in a scratch copy without node_modules.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));
const writeJson = (file, value) => writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);

/** Where Node would find `name` from the package at `from` (a lock key), or null. */
function resolve(packages, from, name) {
  let base = from;
  for (;;) {
    const candidate = `${base === '' ? '' : `${base}/`}node_modules/${name}`;
    if (packages[candidate] !== undefined) return candidate;
    if (base === '') return null;
    const cut = base.lastIndexOf('/node_modules/');
    base = cut === -1 ? '' : base.slice(0, cut);
  }
}

/** Lock entries whose optional dependencies are not all recorded. */
function incomplete(lock) {
  const problems = [];
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (path === '' || entry.link) continue;
    const missing = Object.entries(entry.optionalDependencies ?? {}).filter(([name]) => resolve(lock.packages, path, name) === null);
    if (missing.length > 0)
      problems.push({ path, name: path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length), version: entry.version, missing });
  }
  return problems;
}

/**
 * Optional dependencies outside the package's own family (its scope or name prefix, and
 * the usual fsevents): a platform binary of an unrelated project is worth a human look.
 */
function strangers(name, optional) {
  const family = name.startsWith('@') ? name.slice(0, name.indexOf('/')) : name;
  return Object.keys(optional).filter(
    (dep) => dep !== 'fsevents' && !dep.startsWith(`${family}/`) && !dep.startsWith(`@${family}/`) && !dep.startsWith(`${family}-`),
  );
}

function check(lockFile) {
  const problems = incomplete(readJson(lockFile));
  for (const problem of problems) {
    console.log(
      `${problem.path}@${problem.version} lacks ${problem.missing.length} optional: ${problem.missing.map(([name, range]) => `${name}@${range}`).join(', ')}`,
    );
  }
  if (problems.length > 0) process.exitCode = 1;
  else console.log('every optional (platform) dependency is recorded');
}

function prune(lockFile) {
  const lock = readJson(lockFile);
  let removed = 0;
  for (const problem of incomplete(lock)) {
    const entry = lock.packages[problem.path];
    const doomed = [problem.path];
    for (const name of Object.keys(entry.optionalDependencies ?? {})) {
      const found = resolve(lock.packages, problem.path, name);
      // Only the dependency's own copy: a shared one (fsevents) may serve other packages.
      if (found !== null && found !== 'node_modules/fsevents') doomed.push(found);
    }
    for (const path of Object.keys(lock.packages)) {
      if (doomed.some((gone) => path === gone || path.startsWith(`${gone}/node_modules/`))) {
        // eslint-disable-next-line @typescript-eslint/no-dynamic-delete -- the lockfile's packages are JSON keyed by path: removing one is the edit
        delete lock.packages[path];
        removed++;
      }
    }
  }
  writeJson(lockFile, lock);
  console.log(`pruned ${removed} lock entries`);
}

function pin(packageFile, pinsFile) {
  const manifest = readJson(packageFile);
  const pins = readJson(pinsFile).pins ?? {};
  manifest.overrides = { ...(manifest.overrides ?? {}), ...pins };
  writeJson(packageFile, manifest);
  console.log(
    `pinned for this resolution: ${
      Object.entries(pins)
        .map(([name, version]) => `${name}@${version}`)
        .join(', ') || 'nothing'
    }`,
  );
}

/** Release numbers descending, then prerelease tags (numeric parts as numbers); enough to list candidates. */
function newestFirst(a, b) {
  const parts = (version) => version.split(/[.+-]/).map((part) => (/^\d+$/.test(part) ? Number(part) : part));
  const [x, y] = [parts(a), parts(b)];
  for (let index = 0; index < Math.max(x.length, y.length); index++) {
    const [p, q] = [x[index], y[index]];
    if (p === q) continue;
    if (p === undefined) return -1;
    if (q === undefined) return 1;
    if (typeof p === typeof q) return p < q ? 1 : -1;
    return typeof p === 'number' ? -1 : 1;
  }
  return 0;
}

async function packument(registry, name, cache) {
  if (!cache.has(name)) {
    const response = await fetch(`${registry}${name.replace('/', '%2f')}`, { headers: { accept: 'application/json' } });
    cache.set(name, response.ok ? await response.json() : null);
  }
  return cache.get(name);
}

async function advise(lockFile) {
  const registry = execFileSync('npm', ['config', 'get', 'registry'], { encoding: 'utf8' }).trim().replace(/\/?$/, '/');
  const cache = new Map();
  const seen = new Set();
  for (const problem of incomplete(readJson(lockFile))) {
    if (seen.has(problem.name)) continue;
    seen.add(problem.name);
    const document = await packument(registry, problem.name, cache);
    if (document === null) continue;
    const major = problem.version.split('.')[0];
    const versions = Object.keys(document.versions)
      .filter((version) => version.split('.')[0] === major)
      .sort(newestFirst)
      .slice(0, 30);
    console.log(`\n${problem.name}@${problem.version}: newest versions of major ${major} on ${registry}`);
    for (const version of versions) {
      const optional = document.versions[version].optionalDependencies ?? {};
      const absent = [];
      for (const [name, range] of Object.entries(optional)) {
        if (name === 'fsevents') continue;
        if (!(await packument(registry, name, cache))?.versions?.[range]) absent.push(name);
      }
      const odd = strangers(problem.name, optional);
      const verdict = absent.length === 0 ? 'complete' : `${absent.length} platform packages missing`;
      console.log(`  ${version}  ${verdict}${odd.length > 0 ? `  UNEXPECTED optional deps: ${odd.join(', ')}` : ''}`);
    }
  }
}

const [command, ...files] = process.argv.slice(2);
const commands = { check, prune, pin, advise };
if (!(command in commands) || files.length === 0) {
  console.error('usage: lockfile-platforms.mjs check|prune|advise LOCK | pin PACKAGE_JSON PINS_JSON');
  process.exit(2);
}
await commands[command](...files);
