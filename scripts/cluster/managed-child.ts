import { spawn } from 'node:child_process';
import type { PrefixedOutput } from './prefixed-output.js';

export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ManagedChild {
  name: string;
  pid: number;
  /** Settles when the process has exited, whoever ended it. */
  exited: Promise<ChildExit>;
  running(): boolean;
  /** Sends a signal if the process still runs. */
  signal(signal: NodeJS.Signals): void;
  /** SIGTERM, then SIGKILL if it is still running after `graceMs`. */
  stop(graceMs: number): Promise<ChildExit>;
}

/** Every managed child still running, for a supervisor that must kill them all at once. */
const live = new Set<ManagedChild>();

/** Sends `signal` to every managed child still running (e.g. SIGKILL on a second Ctrl-C). */
export function signalManagedChildren(signal: NodeJS.Signals): void {
  for (const child of live) child.signal(signal);
}

/**
 * Starts one process of the cluster with its output prefixed by its name. It runs in a
 * process group of its own (`detached`), so a Ctrl-C in the terminal reaches only the
 * supervisor, which then stops the children in order: each child gets exactly one
 * SIGTERM, where a shared group would deliver the terminal's SIGINT and the supervisor's
 * signal, and a second signal means "exit at once" to Docwright.
 */
export function startManagedChild(options: {
  name: string;
  command: string;
  args: string[];
  environment: NodeJS.ProcessEnv;
  output: PrefixedOutput;
  /** False keeps the child in the supervisor's process group and session (see ClusterOptions.ownProcessGroups). */
  ownProcessGroup?: boolean;
}): ManagedChild {
  const child = spawn(options.command, options.args, {
    env: options.environment,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.ownProcessGroup ?? true,
  });
  if (child.pid === undefined) throw new Error(`could not start ${options.name}: ${options.command} ${options.args.join(' ')}`);
  options.output.follow(options.name, child.stdout);
  options.output.follow(options.name, child.stderr);
  let done = false;
  const exited = new Promise<ChildExit>((resolve) => {
    child.once('exit', (code, signal) => {
      done = true;
      resolve({ code, signal });
    });
  });
  const send = (signal: NodeJS.Signals): void => {
    if (done) return;
    try {
      child.kill(signal);
    } catch {
      // Gone between the check and the signal.
    }
  };
  const managed: ManagedChild = {
    name: options.name,
    pid: child.pid,
    exited,
    running: () => !done,
    signal: send,
    async stop(graceMs) {
      send('SIGTERM');
      const timer = setTimeout(() => send('SIGKILL'), graceMs);
      try {
        return await exited;
      } finally {
        clearTimeout(timer);
      }
    },
  };
  live.add(managed);
  void exited.then(() => live.delete(managed));
  return managed;
}
