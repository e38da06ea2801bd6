// Worker thread of the `docs` suite's compile baseline (bench/docs-compile-baseline.ts):
// the old check_docs approach, `@mdx-js/mdx` compile() of each page body. Plain
// JavaScript so the thread needs no TypeScript loader.
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort } from 'node:worker_threads';
import { compile } from '@mdx-js/mdx';

// The tool workers run at nice 10 (agent/tools/tool-worker-bootstrap.mjs); the baseline's
// threads do too, or on a shared machine the baseline would get the CPU the check does not.
try {
  const threadId = Number(readlinkSync('/proc/thread-self').split('/').pop());
  if (Number.isInteger(threadId) && threadId > 0) setPriority(threadId, 10);
} catch {
  // Not Linux, or not allowed: both sides keep normal priority then.
}

// With remark-math the `$$…$$` blocks parse as Mintlify reads them; without it their
// braces are MDX expressions and the compile stops early with an error, which would make
// the baseline look cheaper than it is. So the math is blanked when the plugin is missing.
let remarkMath;
try {
  remarkMath = (await import('remark-math')).default;
} catch {
  remarkMath = undefined;
}
const MATH = /\$\$[\s\S]*?\$\$|\$[^$\n]+\$/g;

function prepare(text) {
  // The old checker blanked the frontmatter (keeping its lines) before compiling.
  let body = text;
  const frontmatter = /^---\n[\s\S]*?\n---\n/.exec(text);
  if (frontmatter !== null) body = frontmatter[0].replace(/[^\n]/g, ' ') + text.slice(frontmatter[0].length);
  return remarkMath === undefined ? body.replace(MATH, (math) => math.replace(/[^\n]/g, ' ')) : body;
}

parentPort.on('message', async ({ id, path, text }) => {
  try {
    await compile({ value: prepare(text), path }, { format: 'mdx', remarkPlugins: remarkMath === undefined ? [] : [remarkMath] });
    parentPort.postMessage({ id, failed: false });
  } catch {
    parentPort.postMessage({ id, failed: true });
  }
});
parentPort.postMessage({ ready: true, math: remarkMath !== undefined });
