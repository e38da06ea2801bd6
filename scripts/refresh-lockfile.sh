#!/usr/bin/env bash
# Re-resolves package-lock.json so that `npm ci` accepts it and it records every optional
# platform package (macOS, Windows, ARM, musl…), not just this machine's. Run it after
# adding, removing or merging dependencies; docs/dependencies.md explains why it exists.
#
#   scripts/refresh-lockfile.sh          rewrite package-lock.json in place
#   scripts/refresh-lockfile.sh --check  only say whether the committed lock is complete
#
# Versions already locked stay as they are (nothing unrelated is upgraded): only packages
# whose platform packages are missing from the lock are resolved again.
set -euo pipefail
root="$(git -C "$(dirname "$0")" rev-parse --show-toplevel)"
tool="$root/scripts/lockfile-platforms.mjs"

if [[ "${1:-}" == "--check" ]]; then
  node "$tool" check "$root/package-lock.json"
  exit
fi

# A scratch copy without node_modules: with an installed tree present, npm records only
# the platform packages it installed (npm/cli#4828), which is how the lock lost them.
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp "$root/package.json" "$root/package-lock.json" "$work/"
# The workspace packages' manifests too (plain paths, no globs), or npm drops them from the lock.
for workspace in $(node -e "console.log((require('$root/package.json').workspaces ?? []).join(' '))"); do
  mkdir -p "$work/$workspace"
  cp "$root/$workspace/package.json" "$work/$workspace/"
done
cd "$work"

node "$tool" prune package-lock.json
# Pins go in as overrides for this resolution only; the lock keeps the pinned versions
# afterwards because they satisfy the ranges, so package.json needs no override.
node "$tool" pin package.json "$root/scripts/lockfile-pins.json"
npm install --package-lock-only --ignore-scripts --no-audit --no-fund --loglevel=error
cp "$root/package.json" package.json
npm install --package-lock-only --ignore-scripts --no-audit --no-fund --loglevel=error

if ! node "$tool" check package-lock.json; then
  echo
  echo "The registry ($(npm config get registry)) lacks some platform packages of the versions above."
  echo "Pick a version that is complete for each (and has no UNEXPECTED optional deps):"
  node "$tool" advise package-lock.json
  echo
  echo "then pin it in scripts/lockfile-pins.json (a transitive dependency) or narrow the range"
  echo "in package.json (a direct one), and run this script again. package-lock.json is unchanged."
  exit 1
fi
npm ci --dry-run --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null
cp package-lock.json "$root/package-lock.json"
echo "package-lock.json refreshed; npm ci --dry-run accepts it."
