import { parentPort } from 'node:worker_threads';
import type { FromWorker, ToolTask, ToWorker } from './tool-worker-protocol.js';
import { analyzePage } from '../../docs-site/page-analysis.js';
import { buildSiteConfig } from '../../docs-site/site-config.js';
import { openApiPages } from '../../docs-site/openapi-pages.js';
import { selectLines } from './line-range.js';
import { planEdit } from './edit-plan.js';
import { ownBytes, readText } from './text-file.js';
import { isToolFailure } from './tool-failure.js';

/*
 * Runs in a tool worker thread (see tool-worker-pool.ts; started through
 * tool-worker-bootstrap.mjs). One task at a time (the pool may send the next while one
 * runs; it waits behind it, see serve()); the pool stops the thread when a task
 * overruns its time limit, since a synchronous compile cannot be interrupted otherwise.
 */

async function perform(task: ToolTask): Promise<{ result: unknown; transfer: ArrayBuffer[] }> {
  switch (task.kind) {
    case 'analyze-page':
      return { result: await analyzePage(task.path, task.text), transfer: [] };
    case 'site-config':
      return { result: buildSiteConfig(task.configPath, task.texts), transfer: [] };
    case 'openapi-pages':
      return { result: openApiPages(task.specText, task.directory), transfer: [] };
    case 'read-lines': {
      const text = await readText(task.absolute, task.shown, task.maxFileBytes);
      return { result: selectLines(text, task.shown, task, task.maxResultBytes), transfer: [] };
    }
    case 'edit': {
      const text = await readText(task.absolute, task.shown, task.maxFileBytes);
      const plan = planEdit(text, task.shown, task.oldString, task.newString, task.maxFileBytes, task.replaceAll);
      const bytes = ownBytes(Buffer.from(plan.updated, 'utf8'));
      return { result: { bytes, line: plan.line, replacements: plan.replacements }, transfer: [bytes.buffer as ArrayBuffer] };
    }
  }
}

function serve(port: NonNullable<typeof parentPort>): void {
  const send = (message: FromWorker, transfer: ArrayBuffer[] = []): void => port.postMessage(message, transfer);
  // Tasks run one after another, never side by side: the pool sends the next task while
  // one runs and takes answers in the order it sent them, so a short read that overtook a
  // long one would have its answer dropped and time out.
  let previous: Promise<void> = Promise.resolve();
  port.on('message', (message: ToWorker) => {
    const { id } = message;
    previous = previous.then(() =>
      perform(message.task).then(
        ({ result, transfer }) => send({ type: 'done', id, result }, transfer),
        (error: unknown) => {
          if (isToolFailure(error)) send({ type: 'failure', id, message: error.message });
          else send({ type: 'error', id, message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
        },
      ),
    );
  });
  send({ type: 'ready' });
}

if (parentPort !== null) serve(parentPort);
