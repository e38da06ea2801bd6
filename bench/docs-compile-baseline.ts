/**
 * The `docs` suite's second baseline: the old check_docs approach, `@mdx-js/mdx`
 * compile() of every page in as many worker threads as the tool pool has, with the same
 * reading of the files. It finds syntax errors only, without judging any link, so a new
 * checker near it pays little for its links, redirects and navigation.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';

export interface CompileBaseline {
  milliseconds: number;
  /** Pages the compiler rejected (expected 0). */
  failed: number;
  /** Whether remark-math was there to read the math as Mintlify does (else it was blanked). */
  math: boolean;
}

const WORKER_ENTRY = new URL('./docs-compile-worker.mjs', import.meta.url);
const READ_CONCURRENCY = 32;

/** Compiles every page of `directory` in `threads` workers; the clock starts once they have loaded the compiler. */
export async function timeMdxCompile(directory: string, pages: readonly string[], threads: number): Promise<CompileBaseline> {
  const workers = await Promise.all(Array.from({ length: threads }, () => startWorker()));
  try {
    const startedAt = performance.now();
    let nextRead = 0;
    let failed = 0;
    const texts: Array<Promise<{ path: string; text: string }>> = [];
    // Reads run ahead of the compiles, at most READ_CONCURRENCY at once, as the checker reads in batches.
    const read = (): Promise<{ path: string; text: string }> | undefined => {
      if (nextRead >= pages.length) return undefined;
      const path = pages[nextRead++]!;
      return readFile(join(directory, path), 'utf8').then((text) => ({ path, text }));
    };
    for (let index = 0; index < READ_CONCURRENCY; index += 1) {
      const pending = read();
      if (pending !== undefined) texts.push(pending);
    }
    await Promise.all(
      workers.map(async ({ worker }) => {
        for (let page = texts.shift(); page !== undefined; page = texts.shift()) {
          const more = read();
          if (more !== undefined) texts.push(more);
          const { path, text } = await page;
          if (await compileOn(worker, path, text)) failed += 1;
        }
      }),
    );
    return { milliseconds: performance.now() - startedAt, failed, math: workers[0]?.math ?? false };
  } finally {
    await Promise.all(workers.map(({ worker }) => worker.terminate()));
  }
}

function startWorker(): Promise<{ worker: Worker; math: boolean }> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(WORKER_ENTRY);
    worker.once('error', reject);
    worker.once('message', (message: { ready: boolean; math: boolean }) => resolve({ worker, math: message.math }));
  });
}

let nextId = 1;

/** True when the compiler rejected the page. */
function compileOn(worker: Worker, path: string, text: string): Promise<boolean> {
  const id = nextId++;
  return new Promise((resolve, reject) => {
    const onMessage = (message: { id: number; failed: boolean }): void => {
      if (message.id !== id) return;
      worker.off('message', onMessage);
      worker.off('error', reject);
      resolve(message.failed);
    };
    worker.on('message', onMessage);
    worker.once('error', reject);
    worker.postMessage({ id, path, text });
  });
}
