// Preloaded with `node --import` into a child process under test: appends the URL of every
// module the process (and each of its worker threads, which inherit --import) loads through
// the ESM loader to the file named by DOCWRIGHT_TEST_MODULE_LOG, after one line with the
// thread's execArgv. Lets a test prove what a process did not load (tsx, .ts sources).
import { appendFileSync } from 'node:fs';
import { register } from 'node:module';
import { isMainThread } from 'node:worker_threads';

const file = process.env.DOCWRIGHT_TEST_MODULE_LOG;
if (file) {
  appendFileSync(file, `execArgv ${isMainThread ? 'main' : 'worker'} ${JSON.stringify(process.execArgv)}\n`);
  register(new URL('./record-module-loads-hooks.mjs', import.meta.url), { data: { file } });
}
