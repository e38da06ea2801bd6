import { readdirSync, readFileSync } from 'node:fs';

/** pid → (parent pid, process group) of every process /proc shows; empty where there is no /proc. */
function processTable(): Map<number, { parent: number; group: number }> {
  const table = new Map<number, { parent: number; group: number }>();
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return table;
  }
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited while we read
    }
    // "pid (comm) state ppid pgrp …": comm may hold spaces and parentheses, so split after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    table.set(Number(entry), { parent: Number(fields[1]), group: Number(fields[2]) });
  }
  return table;
}

/**
 * The process groups of every descendant of `pid`, its own group excluded. A worker runs
 * git in groups of their own (so a git timeout ends git-remote-https too); a SIGKILL to the
 * worker's group does not reach them, and they would go on writing into a directory the
 * test is removing.
 */
export function descendantGroups(pid: number): number[] {
  const table = processTable();
  const own = table.get(pid)?.group ?? pid;
  const children = new Map<number, number[]>();
  for (const [child, { parent }] of table) children.set(parent, [...(children.get(parent) ?? []), child]);
  const groups = new Set<number>();
  const pending = [...(children.get(pid) ?? [])];
  while (pending.length > 0) {
    const next = pending.pop()!;
    const group = table.get(next)?.group;
    if (group !== undefined && group !== own) groups.add(group);
    pending.push(...(children.get(next) ?? []));
  }
  return [...groups];
}

/** process.kill that ignores a group already gone. */
function signalGroup(group: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-group, signal);
  } catch {
    // The group is gone already.
  }
}

/**
 * SIGKILL for `pid`'s process group and every group its descendants started. The group is
 * stopped first, so it starts no new child between the look at /proc and the kill.
 */
export function killProcessTree(pid: number): void {
  signalGroup(pid, 'SIGSTOP');
  for (const group of descendantGroups(pid)) signalGroup(group, 'SIGKILL');
  signalGroup(pid, 'SIGKILL');
}
