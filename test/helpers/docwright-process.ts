import { spawn, type ChildProcess } from 'node:child_process';
import { killProcessTree } from './process-tree.js';
import { CLI } from './run-cli.js';
import { TEST_SECRET } from './test-app.js';
import type { TestDatabase } from './test-database.js';

/** One JSON log line of a child (pino): `msg`, `level` (30 info, 40 warn, 50 error) and the rest. */
export interface LogLine {
  level: number;
  msg: string;
  time: number;
  [field: string]: unknown;
}

export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface DocwrightProcess {
  child: ChildProcess;
  pid: number;
  /** The CLI arguments it was started with (`['serve', '--no-worker']`…). */
  args: readonly string[];
  /** `serve`: where it listens (from its start-up line); null for `worker`. */
  url: string | null;
  /** Every log line so far, parsed. */
  readonly logs: readonly LogLine[];
  /** Everything written to stdout and stderr so far, for failure messages. */
  output(): string;
  /** The first log line (already written or still to come) that matches; rejects after `timeoutMs`. */
  waitForLog(match: string | RegExp | ((line: LogLine) => boolean), timeoutMs?: number): Promise<LogLine>;
  /** Sends a signal (SIGTERM, SIGINT, SIGKILL, SIGSTOP, SIGCONT…). */
  signal(signal: NodeJS.Signals): void;
  /** Resolves when the process has exited (and its output is read to the end). */
  readonly exited: Promise<ExitStatus>;
  /** The exit, or a rejection naming the output if it takes longer than `timeoutMs`. */
  waitForExit(timeoutMs?: number): Promise<ExitStatus>;
  /**
   * For afterEach: SIGSTOP its process group, SIGKILL the git process groups it started
   * (they have groups of their own), then SIGKILL its group; and wait for the exit.
   */
  kill(): Promise<void>;
}

export interface StartDocwrightOptions {
  /** `['serve']`, `['serve', '--no-worker']`, `['worker']`, or any other subcommand. */
  args: string[];
  /** The child's whole environment besides PATH and HOME (nothing is inherited). */
  env: Record<string, string>;
  /** Wait for the start-up line (`serve`: listening, `worker`: started); default true for serve and worker. */
  waitUntilReady?: boolean;
  startTimeoutMs?: number;
}

/**
 * The environment a child needs to share a test's store: its data dir, the test secret, the
 * PostgreSQL URL when the test is on PostgreSQL, info-level logs (the harness reads them),
 * and no inherited variables.
 */
export function processEnvironment(
  testDatabase: Pick<TestDatabase, 'dialect' | 'location' | 'dataDir'>,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    DOCWRIGHT_DATA_DIR: testDatabase.dataDir,
    DOCWRIGHT_SECRET: TEST_SECRET,
    DOCWRIGHT_LOG_LEVEL: 'info',
    DOCWRIGHT_AGENT_RANGES_REFRESH_HOURS: '0',
    PORT: '0',
    ...(testDatabase.dialect === 'postgres' ? { DOCWRIGHT_DATABASE_URL: testDatabase.location } : {}),
    ...extra,
  };
}

const matcher = (match: string | RegExp | ((line: LogLine) => boolean)) =>
  typeof match === 'function' ? match : typeof match === 'string' ? (line: LogLine) => line.msg.includes(match) : (line: LogLine) => match.test(line.msg);

/**
 * Spawns the real `docwright` executable (bin/docwright.js, through run-cli's CLI) as a
 * child process and reads its JSON logs, so tests can wait for a phase, signal it and
 * check how it exits. Returns at once; startDocwright() also waits until it is ready.
 */
export function spawnDocwright(options: Pick<StartDocwrightOptions, 'args' | 'env'>): DocwrightProcess {
  const child = spawn(process.execPath, [CLI, ...options.args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    // Its own process group, so kill() also ends the git processes it started: they would
    // otherwise go on writing into a data dir the test is removing.
    detached: true,
  });
  const logs: LogLine[] = [];
  const waiters = new Set<(line: LogLine) => void>();
  let output = '';
  let partial = '';
  child.stdout.on('data', (chunk: Buffer) => {
    const text = chunk.toString();
    output += text;
    partial += text;
    const lines = partial.split('\n');
    partial = lines.pop()!;
    for (const raw of lines) {
      if (!raw.startsWith('{')) continue;
      let line: LogLine;
      try {
        line = JSON.parse(raw) as LogLine;
      } catch {
        continue;
      }
      logs.push(line);
      for (const waiter of [...waiters]) waiter(line);
    }
  });
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<ExitStatus>((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));

  const waitForLog: DocwrightProcess['waitForLog'] = (match, timeoutMs = 30_000) => {
    const test = matcher(match);
    const already = logs.find(test);
    if (already) return Promise.resolve(already);
    return new Promise((resolve, reject) => {
      const waiter = (line: LogLine) => {
        if (!test(line)) return;
        cleanup();
        resolve(line);
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(new Error(`no log line matching ${String(match)} within ${timeoutMs} ms; output:\n${output}`));
      }, timeoutMs);
      void exited.then(() => {
        // Give the last lines a moment to be parsed before giving up on an exited process.
        setTimeout(() => {
          if (!waiters.has(waiter)) return;
          cleanup();
          reject(new Error(`the process exited without a log line matching ${String(match)}; output:\n${output}`));
        }, 50);
      });
      const cleanup = () => {
        clearTimeout(timer);
        waiters.delete(waiter);
      };
      waiters.add(waiter);
    });
  };

  const handle: DocwrightProcess = {
    child,
    pid: child.pid!,
    args: options.args,
    url: null,
    logs,
    output: () => output,
    waitForLog,
    signal: (signal) => void child.kill(signal),
    exited,
    async waitForExit(timeoutMs = 30_000) {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`the process did not exit within ${timeoutMs} ms; output:\n${output}`)), timeoutMs);
      });
      try {
        return await Promise.race([exited, timeout]);
      } finally {
        clearTimeout(timer);
      }
    },
    async kill() {
      // Unconditionally: the process may be gone while children of its group run on.
      killProcessTree(child.pid!);
      await exited;
    },
  };
  return handle;
}

/** spawnDocwright(), then (for `serve` and `worker`, unless told otherwise) waits for its start-up line. */
export async function startDocwright(options: StartDocwrightOptions): Promise<DocwrightProcess> {
  const handle = spawnDocwright(options);
  const command = options.args[0];
  if (options.waitUntilReady ?? (command === 'serve' || command === 'worker')) {
    const timeoutMs = options.startTimeoutMs ?? 30_000;
    try {
      if (command === 'serve') {
        const line = await handle.waitForLog((entry) => typeof entry['url'] === 'string' && entry.msg.startsWith('Docwright listening'), timeoutMs);
        handle.url = line['url'] as string;
      } else {
        await handle.waitForLog('Docwright worker started', timeoutMs);
      }
    } catch (error) {
      await handle.kill();
      throw error;
    }
  }
  return handle;
}
