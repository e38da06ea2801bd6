import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { DocwrightError } from '../core/errors.js';
import { gitEnvironment } from './run-git.js';

/** A process left without requests for this long is ended; the next request starts another. */
const IDLE_MS = 2_000;

interface Request {
  count: number;
  contents: Uint8Array[];
  resolve: (contents: Uint8Array[]) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

/**
 * One long-lived `git cat-file --batch` for a repository: blob contents by object id, many
 * requests through one process. Starting a process costs the server a fork of itself (a
 * few ms at 50 MiB, tens of ms at several hundred), and the docs check reads a commit's
 * pages 64 at a time: one process per batch was hundreds of forks for a large site.
 * Requests run one after another; the process ends when idle, or on the first error.
 */
export class GitCatFile {
  private child: ChildProcessWithoutNullStreams | undefined;
  private current: Request | undefined;
  private pending: Buffer = Buffer.alloc(0);
  private expected: number | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private idle: NodeJS.Timeout | undefined;

  constructor(
    private readonly repository: string,
    private readonly timeoutMs: number,
  ) {}

  /** The contents of these blobs, in order. */
  read(objects: readonly string[]): Promise<Uint8Array[]> {
    const run = this.queue.then(() => this.request(objects));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private request(objects: readonly string[]): Promise<Uint8Array[]> {
    if (objects.length === 0) return Promise.resolve([]);
    clearTimeout(this.idle);
    const child = this.child ?? this.start();
    holdOpen(child, true);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => this.fail(`git cat-file timed out after ${this.timeoutMs} ms`), this.timeoutMs);
      this.current = { count: objects.length, contents: [], resolve, reject, timer };
      child.stdin.write(objects.map((object) => `${object}\n`).join(''));
    });
  }

  private start(): ChildProcessWithoutNullStreams {
    const child = spawn('git', ['cat-file', '--batch'], { cwd: this.repository, env: gitEnvironment(null), stdio: ['pipe', 'pipe', 'pipe'] });
    this.child = child;
    this.pending = Buffer.alloc(0);
    this.expected = null;
    child.stdout.on('data', (chunk: Buffer) => {
      if (this.child === child) this.take(chunk);
    });
    child.stderr.resume();
    child.stdin.on('error', () => undefined);
    child.once('error', (error) => this.fail(`git cat-file could not start: ${error.message}`, child));
    child.once('close', () => {
      if (this.child === child) this.fail('git cat-file ended early', child);
    });
    return child;
  }

  private take(chunk: Buffer): void {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    for (;;) {
      const request = this.current;
      if (request === undefined) return;
      if (this.expected === null) {
        const newline = this.pending.indexOf(0x0a);
        if (newline === -1) return;
        const header = this.pending.subarray(0, newline).toString('latin1');
        const size = /^\S+ blob (\d+)$/.exec(header)?.[1];
        if (size === undefined) return this.fail(`git cat-file answered ${JSON.stringify(header.slice(0, 100))}`);
        this.expected = Number(size);
        this.pending = this.pending.subarray(newline + 1);
      }
      // The content is followed by one newline.
      if (this.pending.length < this.expected + 1) return;
      request.contents.push(new Uint8Array(this.pending.subarray(0, this.expected)));
      this.pending = this.pending.subarray(this.expected + 1);
      this.expected = null;
      if (request.contents.length === request.count) {
        clearTimeout(request.timer);
        this.current = undefined;
        request.resolve(request.contents);
        // Idle, it must not keep a command-line run from exiting.
        if (this.child !== undefined) holdOpen(this.child, false);
        this.idle = setTimeout(() => this.stop(), IDLE_MS).unref();
      }
    }
  }

  private fail(message: string, child = this.child): void {
    if (child !== this.child) return;
    const request = this.current;
    this.current = undefined;
    this.stop();
    if (request !== undefined) {
      clearTimeout(request.timer);
      request.reject(new DocwrightError('git_failed', message, { status: 500 }));
    }
  }

  private stop(): void {
    const child = this.child;
    this.child = undefined;
    clearTimeout(this.idle);
    if (child === undefined) return;
    child.stdin.end();
    // It exits at the end of its input; one that does not is killed.
    setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
  }
}

/** Whether the process and its pipes keep Node's event loop alive. */
function holdOpen(child: ChildProcessWithoutNullStreams, hold: boolean): void {
  for (const handle of [child, child.stdin, child.stdout, child.stderr] as Array<{ ref?: () => void; unref?: () => void }>) {
    if (hold) handle.ref?.();
    else handle.unref?.();
  }
}
