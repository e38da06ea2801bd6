import { randomUUID } from 'node:crypto';
import { unwatchFile, watchFile, type Stats } from 'node:fs';
import { join } from 'node:path';
import { BroadcastChannel } from 'node:worker_threads';
import type { Clock } from '../../core/clock.js';
import { workerEntry } from '../../core/runtime-paths.js';
import { EvidenceVerifier, type VerificationWants } from './evidence-verifier.js';
import { FetchFailureLog, type FetchFailureLine } from './fetch-failure-log.js';
import { ForwardConfirmedDns, type DnsResolver } from './forward-confirmed-dns.js';
import type { AddressResolver } from './guarded-fetch.js';
import type { HitVerifier, VerificationInput } from './hit-verifier.js';
import { KeyDirectoryCache } from './key-directory-cache.js';
import { NonceRegistry } from './nonce-registry.js';
import { buildRangeCatalog, type RangeCatalog, type RangeFile } from './range-catalog.js';
import { loadRangeFile, RANGES_FILE_NAME, readRangeFile, refreshRanges, saveRangeFile, type RangeRefreshResult } from './range-refresh.js';
import type { VerifierSnapshot, VerifierSnapshotMessage } from './verifier-snapshot.js';
import { wantsChannelName, type ChannelSnapshot, type WorkerResync, type WorkerVerifierData } from './worker-hit-verifier.js';

/** Tests and benchmarks only: key directories and range lists on loopback, over plain http, and the names they resolve. */
export interface VerificationNetwork {
  allowLoopback?: boolean;
  resolve?: AddressResolver;
  dns?: DnsResolver;
}

export interface VerificationServiceOptions extends VerificationNetwork {
  clock: Clock;
  /** Holds the refreshed ranges (agent-ranges.json); null keeps them in memory only. */
  dataDir: string | null;
  /** How often the server refreshes the ranges from the operators; null turns it off. */
  rangeRefreshMs: number | null;
  /** Replaces the operators' URLs (`${from}/${set id}.json`): a mirror, or a fake server in tests. */
  rangesFrom?: string;
  /**
   * How often agent-ranges.json in the data directory is checked for a newer copy
   * (`docwright analytics agents update`, another process's refresh). Default 30 s.
   */
  rangesFileCheckMs?: number;
  onRefresh?: (result: RangeRefreshResult) => void;
  onError?: (message: string, error: unknown) => void;
  /** A key directory could not be fetched: one line, no stack, rate-limited (fetch-failure-log.ts). */
  onDirectoryFailure?: (line: FetchFailureLine) => void;
}

/** How long snapshot changes are gathered before workers hear of them. */
const PUBLISH_DELAY_MS = 250;
const RANGES_FILE_CHECK_MS = 30_000;

/**
 * Owns everything verification learns off the ingest path: the ranges (loaded, and
 * refreshed on a schedule), the key-directory cache, the reverse DNS verdicts and the
 * nonce table. The ingest path only reads: `verifier()` on this thread, snapshots in
 * worker threads; what either could not check it hands back through `want()`.
 */
export class VerificationService {
  readonly keys: KeyDirectoryCache;
  readonly dns: ForwardConfirmedDns;
  readonly nonces = new NonceRegistry();
  private rangeFile: RangeFile | null = null;
  private ranges: RangeCatalog = { version: 'none', sets: [] };
  private live: EvidenceVerifier;
  private version = 0;
  private readonly listeners = new Set<(snapshot: VerifierSnapshot) => void>();
  private readonly rangeListeners = new Set<(ranges: RangeCatalog) => void>();
  private publishTimer: NodeJS.Timeout | null = null;
  private refreshTimer: NodeJS.Timeout | null = null;
  private watchedFile: { path: string; listener: (current: Stats, previous: Stats) => void } | null = null;
  /** Set by stop(): a start() still loading its ranges then starts no poll or timer. */
  private stopped = false;
  private channels: { name: string; updates: BroadcastChannel; wants: BroadcastChannel } | null = null;

  constructor(private readonly options: VerificationServiceOptions) {
    const failures = new FetchFailureLog(options.clock, (line) => options.onDirectoryFailure?.(line));
    this.keys = new KeyDirectoryCache({
      clock: options.clock,
      onChange: () => this.changed('rebuild'),
      allowLoopback: options.allowLoopback === true,
      ...(options.resolve === undefined ? {} : { resolve: options.resolve }),
      onError: (agentUrl, error) => failures.report(agentUrl, error),
    });
    this.dns = new ForwardConfirmedDns({
      clock: options.clock,
      // This thread's verifier reads verdicts through rdnsVerdict as it verifies: only workers need telling.
      onChange: () => this.changed('publish'),
      onSuspectResolver: (count) =>
        options.onError?.(
          `reverse DNS said "no such name" for the last ${count} addresses it checked: if this resolver cannot resolve public PTR records, every crawler verified by reverse DNS outside its published ranges counts as spoofed (docs/classification.md)`,
          new Error('reverse DNS found no name for any recent address'),
        ),
      ...(options.dns === undefined ? {} : { resolver: options.dns }),
    });
    this.live = this.buildLive();
  }

  /** Loads the ranges (the refreshed file, else the shipped one) and starts the scheduled refresh. */
  async start(): Promise<void> {
    this.setRanges(await loadRangeFile(this.options.dataDir));
    if (this.stopped) return;
    this.watchRangesFile();
    const every = this.options.rangeRefreshMs;
    if (every !== null && every > 0) {
      // The first refresh soon after start, so a fresh install does not wait a whole period.
      const tick = (delay: number): void => {
        this.refreshTimer = setTimeout(() => void this.refreshRanges().finally(() => this.stopped || tick(every)), delay);
        this.refreshTimer.unref();
      };
      tick(Math.min(every, 30_000));
    }
  }

  stop(): void {
    this.stopped = true;
    if (this.watchedFile !== null) unwatchFile(this.watchedFile.path, this.watchedFile.listener);
    this.watchedFile = null;
    this.channels?.updates.close();
    this.channels?.wants.close();
    this.channels = null;
    if (this.refreshTimer !== null) clearTimeout(this.refreshTimer);
    if (this.publishTimer !== null) clearTimeout(this.publishTimer);
    this.refreshTimer = null;
    this.publishTimer = null;
  }

  setRanges(file: RangeFile): void {
    const before = this.ranges.fingerprint;
    this.rangeFile = file;
    this.ranges = buildRangeCatalog(file);
    this.changed('rebuild');
    // Stored hits follow ranges whose content changed (the reclassification job re-verifies them).
    if (before !== undefined && before !== this.ranges.fingerprint) for (const listener of this.rangeListeners) listener(this.ranges);
  }

  /**
   * Picks up a newer agent-ranges.json written by someone else: `docwright analytics agents
   * update` (from cron, or with the server's own refresh off), or another process sharing the
   * data directory. Node's stat polling (`watchFile`) rather than `fs.watch`: the file is
   * replaced by a rename, which inotify reports on the old inode, and a poll every 30 s is
   * cheap. A file whose ranges this process has already (its own refresh's save) changes nothing.
   */
  private watchRangesFile(): void {
    const { dataDir } = this.options;
    if (dataDir === null || this.watchedFile !== null) return;
    const path = join(dataDir, RANGES_FILE_NAME);
    const listener = (current: Stats, previous: Stats): void => {
      if (current.mtimeMs === 0 || (current.mtimeMs === previous.mtimeMs && current.ino === previous.ino)) return;
      // An invalid file (half-written by hand, say) keeps the ranges this process has.
      readRangeFile(dataDir).then(
        (file) => {
          if (file !== null && buildRangeCatalog(file).fingerprint !== this.ranges.fingerprint) this.setRanges(file);
        },
        (error: unknown) => this.options.onError?.('agent ranges could not be re-read', error),
      );
    };
    watchFile(path, { interval: this.options.rangesFileCheckMs ?? RANGES_FILE_CHECK_MS, persistent: false }, listener);
    this.watchedFile = { path, listener };
  }

  /** Hears ranges whose content changed after the first load (a refresh, setRanges); returns the removal. */
  onRangesChanged(listener: (ranges: RangeCatalog) => void): () => void {
    this.rangeListeners.add(listener);
    return () => this.rangeListeners.delete(listener);
  }

  /** The ranges verification checks against now; the reclassification job re-verifies stored hits with them. */
  get catalog(): RangeCatalog {
    return this.ranges;
  }

  get rangeVersion(): string {
    return this.ranges.version;
  }

  async refreshRanges(): Promise<RangeRefreshResult | null> {
    if (this.rangeFile === null) return null;
    try {
      const result = await refreshRanges(this.rangeFile, {
        clock: this.options.clock,
        allowLoopback: this.options.allowLoopback === true,
        ...(this.options.rangesFrom === undefined ? {} : { from: this.options.rangesFrom }),
        ...(this.options.resolve === undefined ? {} : { resolve: this.options.resolve }),
      });
      if (result.lists.some((list) => list.ok)) {
        this.setRanges(result.file);
        if (this.options.dataDir !== null) await saveRangeFile(this.options.dataDir, result.file);
      }
      this.options.onRefresh?.(result);
      return result;
    } catch (error) {
      this.options.onError?.('agent ranges could not be refreshed', error);
      return null;
    }
  }

  /** The verifier for this thread (inline ingest, the beacon): what it cannot check yet is requested at once. */
  verifier(): HitVerifier {
    const live = (): EvidenceVerifier => this.live;
    return {
      verify: (input: VerificationInput) => {
        const verdict = this.live.verify(input);
        const wants = this.live.takeWants();
        if (wants !== null) this.want(wants);
        return verdict;
      },
      // Read through `this.live`: the verifier is rebuilt when the evidence changes.
      get lastEvidence() {
        return live().lastEvidence;
      },
      get rangesVersion() {
        return live().rangesVersion;
      },
      storedAddress: (ip: string) => this.live.storedAddress(ip),
    };
  }

  /** Runs, in the background, the checks a verifier asked for (a worker returns them with its batch as `wants`). */
  want(wants: VerificationWants | null | undefined): void {
    if (wants == null) return;
    for (const { agentUrl, projectId } of wants.directories) this.keys.request(agentUrl, projectId);
    for (const lookup of wants.lookups) this.dns.request(lookup.ip, lookup.suffixes);
  }

  snapshot(): VerifierSnapshot {
    return { version: this.version, ranges: this.ranges, directories: this.keys.snapshot(), rdns: this.dns.entries(), nonces: this.nonces.buffer };
  }

  /** Calls the listener with a new snapshot after each change (gathered over a quarter second); returns the unsubscribe. */
  subscribe(listener: (snapshot: VerifierSnapshot) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Keeps an ingest worker's verifier current: posts the evidence now and after each
   * change (the worker hands the message to WorkerVerifierHolder.accept). Returns the
   * function that stops the updates, for when the worker ends.
   */
  feedWorker(worker: { postMessage(message: VerifierSnapshotMessage): void }): () => void {
    worker.postMessage({ kind: 'verifier-snapshot', snapshot: this.snapshot() });
    return this.subscribe((snapshot) => worker.postMessage({ kind: 'verifier-snapshot', snapshot }));
  }

  /**
   * The verifier for the ingest pipeline, in the shape of IngestPool's `verifier` option:
   * this thread's verifier, and for worker threads the module that builds theirs with its
   * start data. Later evidence reaches workers on a BroadcastChannel; what they could not
   * check comes back on another.
   */
  ingestVerifier(): { verifier: HitVerifier; worker: { module: string; data: () => WorkerVerifierData } } {
    if (this.channels === null) {
      const name = `docwright-verifier-${randomUUID()}`;
      const updates = new BroadcastChannel(name);
      const wants = new BroadcastChannel(wantsChannelName(name));
      updates.unref();
      wants.unref();
      const post = ({ nonces: _shared, ...snapshot }: VerifierSnapshot): void => this.channels?.updates.postMessage(snapshot satisfies ChannelSnapshot);
      wants.onmessage = (event) => {
        const message = (event as { data: VerificationWants | WorkerResync }).data;
        // A worker's channel hears only what is posted after it opened: it asks for the evidence as it is now.
        if ('resync' in message) post(this.snapshot());
        else this.want(message);
      };
      this.subscribe(post);
      this.channels = { name, updates, wants };
    }
    const channel = this.channels.name;
    return {
      verifier: this.verifier(),
      // Read as each worker starts: this is called before start() has loaded the ranges, and
      // workers start with the first batches, after the load's snapshot was published.
      worker: { module: workerEntry('analytics/verification/worker-hit-verifier').href, data: () => ({ channel, snapshot: this.snapshot() }) },
    };
  }

  /** Resolves when no fetch or DNS check is pending; for tests and benchmarks. */
  async settled(): Promise<void> {
    await Promise.all([this.keys.settled(), this.dns.settled()]);
  }

  /**
   * New evidence: workers hear of it in the next snapshot. This thread's verifier is rebuilt
   * for new ranges (built into it) and key directories (its memo of valid signatures starts
   * afresh), not for a reverse DNS verdict, which it reads live: a rebuild costs about 240 µs
   * (mostly its address-block memo), and a crawl from many addresses brings a verdict per
   * address.
   */
  private changed(what: 'rebuild' | 'publish'): void {
    this.version++;
    if (what === 'rebuild') this.live = this.buildLive();
    if (this.publishTimer !== null || this.listeners.size === 0) return;
    this.publishTimer = setTimeout(() => {
      this.publishTimer = null;
      const snapshot = this.snapshot();
      for (const listener of this.listeners) listener(snapshot);
    }, PUBLISH_DELAY_MS);
    this.publishTimer.unref();
  }

  private buildLive(): EvidenceVerifier {
    return new EvidenceVerifier({
      ranges: this.ranges,
      keys: this.keys,
      rdnsVerdict: (ip) => this.dns.verdict(ip),
      nonces: this.nonces,
      clock: this.options.clock,
    });
  }
}
