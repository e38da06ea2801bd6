import { readFileSync } from 'node:fs';

/** Linux reports process times in clock ticks; USER_HZ is 100 on every mainstream kernel build. */
const TICKS_PER_SECOND = 100;

/**
 * CPU time (user + system) of a process and of its children it has waited for, in ms,
 * from /proc; NaN where there is no /proc. On a machine shared with other work, CPU time
 * per operation stays comparable when wall-clock figures are blurred by waiting for a core.
 * Children count because the server's git commands are part of what a job costs.
 */
export function processCpuMilliseconds(pid: number | 'self'): number {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return Number.NaN;
  }
  // Fields after the parenthesised command name, which may itself contain spaces.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime, stime, cutime, cstime are fields 14–17 of the whole line, 12–15 after the name.
  const ticks = [11, 12, 13, 14].reduce((sum, index) => sum + Number(fields[index]), 0);
  return (ticks * 1000) / TICKS_PER_SECOND;
}
