// Loader hooks of record-module-loads.mjs (they run on Node's loader thread).
import { appendFileSync } from 'node:fs';

let file;

export function initialize(data) {
  file = data.file;
}

export async function load(url, context, nextLoad) {
  appendFileSync(file, `load ${url}\n`);
  return nextLoad(url, context);
}
