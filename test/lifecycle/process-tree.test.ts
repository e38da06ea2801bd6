import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { descendantGroups, killProcessTree } from '../helpers/process-tree.js';
import { eventually } from './lifecycle-fixture.js';

/** Running: in /proc and not a zombie (a killed child stays one until someone reaps it). */
const alive = (pid: number): boolean => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
};

/**
 * The kill() of the child-process harness: a worker runs git in process groups of their
 * own, which a SIGKILL to the worker's group misses; left running, a clone went on writing
 * into a data directory a test was removing (ENOTEMPTY in CI).
 */
describe('killProcessTree', () => {
  test('ends the detached grandchildren a SIGKILL to the group alone would leave running', async () => {
    // A parent like a worker: its own group, one detached child (git) and one attached.
    const script = `
      const { spawn } = require('node:child_process');
      const detached = spawn('sleep', ['60'], { detached: true, stdio: 'ignore' });
      const attached = spawn('sleep', ['60'], { stdio: 'ignore' });
      console.log(JSON.stringify({ detached: detached.pid, attached: attached.pid }));
      setInterval(() => {}, 1000);`;
    const parent = spawn(process.execPath, ['-e', script], { detached: true, stdio: ['ignore', 'pipe', 'inherit'] });
    const [line] = (await once(parent.stdout, 'data')) as [Buffer];
    const pids = JSON.parse(line.toString()) as { detached: number; attached: number };
    const exited = once(parent, 'exit');
    try {
      const groups = descendantGroups(parent.pid!);
      expect(groups).toEqual([pids.detached]);

      killProcessTree(parent.pid!);
      await exited;
      await eventually(async () => (!alive(pids.detached) && !alive(pids.attached) ? true : undefined), 5_000, 'both children gone');
    } finally {
      for (const pid of [pids.detached, pids.attached, parent.pid!]) {
        if (alive(pid)) process.kill(pid, 'SIGKILL');
      }
    }
  });
});
