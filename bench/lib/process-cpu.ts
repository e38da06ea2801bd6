import { readdirSync, readFileSync } from 'node:fs';

/** utime + stime of a /proc/PID/stat line, in clock ticks (100 per second on Linux). */
function ticksOf(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/**
 * CPU seconds used so far by the processes whose command name is `name`, or by
 * the one process `pid` (Linux /proc; 0 elsewhere). Several benchmark runs may share the
 * machine: count by pid when the process is known.
 */
export function processCpuSeconds(select: { name: string } | { pid: number }): number {
  let entries: string[];
  try {
    entries = 'pid' in select ? [String(select.pid)] : readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));
  } catch {
    return 0;
  }
  let ticks = 0;
  for (const pid of entries) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      if ('name' in select && !stat.includes(`(${select.name})`)) continue;
      ticks += ticksOf(stat);
    } catch {
      // The process ended meanwhile.
    }
  }
  return ticks / 100;
}
