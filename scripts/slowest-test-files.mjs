// Lists the slowest test files of the vitest JSON reports in a directory (written under CI,
// see vitest.config.ts): `node scripts/slowest-test-files.mjs [dir] [count]`.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const dir = process.argv[2] ?? 'test-results';
const count = Number(process.argv[3] ?? 25);
let files = [];
try {
  files = readdirSync(dir).filter((name) => name.endsWith('.json'));
} catch {
  console.log(`no test reports in ${dir}`);
  process.exit(0);
}
const rows = [];
for (const name of files) {
  const report = JSON.parse(readFileSync(join(dir, name), 'utf8'));
  for (const file of report.testResults ?? []) {
    rows.push({ file: relative(process.cwd(), file.name), seconds: (file.endTime - file.startTime) / 1000, tests: file.assertionResults?.length ?? 0 });
  }
}
rows.sort((a, b) => b.seconds - a.seconds);
const total = rows.reduce((sum, row) => sum + row.seconds, 0);
console.log(`${rows.length} test files, ${total.toFixed(0)} s in all; the ${Math.min(count, rows.length)} slowest:`);
for (const row of rows.slice(0, count)) {
  console.log(`${row.seconds.toFixed(1).padStart(8)} s  ${String(row.tests).padStart(4)} tests  ${row.file}`);
}
