import type { JobStreamEvent } from './jobs-api.js';

const MAX_PROMPT_SHOWN = 80;
const MAX_MESSAGE_LINES = 6;

function text(data: Record<string, unknown>, name: string): string | undefined {
  const value = data[name];
  return typeof value === 'string' ? value : undefined;
}

function count(data: Record<string, unknown>, name: string): number | undefined {
  const value = data[name];
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** The first line of a prompt, short enough for one terminal line. */
export function promptHeadline(prompt: string): string {
  const firstLine = prompt.trim().split(/\r?\n/, 1)[0] ?? '';
  const more = firstLine.length > MAX_PROMPT_SHOWN || prompt.trim().includes('\n');
  return more ? `${firstLine.slice(0, MAX_PROMPT_SHOWN - 1)}…` : firstLine;
}

function indented(message: string): string[] {
  const lines = message.trim().split(/\r?\n/);
  const shown = lines.slice(0, MAX_MESSAGE_LINES).map((line) => `    ${line}`);
  if (lines.length > MAX_MESSAGE_LINES) shown.push(`    … (${lines.length - MAX_MESSAGE_LINES} more lines: docwright jobs messages)`);
  return shown;
}

/** Which repository instruction file the turn followed, from `turn.completed`'s `instructions`. */
function instructionsLine(value: unknown): string[] {
  if (typeof value !== 'object' || value === null) return [];
  const path = text(value as Record<string, unknown>, 'path');
  if (path === undefined) return [];
  return [`  ℹ followed the repository's ${path}${(value as Record<string, unknown>)['truncated'] === true ? ' (truncated)' : ''}`];
}

/** The strings of a list (file names, warnings); anything else is dropped. */
function files(list: unknown): string[] {
  return Array.isArray(list) ? list.filter((item): item is string => typeof item === 'string') : [];
}

export interface ProgressPrinter {
  handle(event: JobStreamEvent): void;
  /** Files changed by the turns this printer reported on. */
  readonly filesChanged: ReadonlySet<string>;
  /** Whether a turn this printer reported on completed (so `filesChanged` is meaningful). */
  readonly sawTurnCompleted: boolean;
}

/**
 * Turns job events into progress lines. Events of turns before `fromSequence` are
 * history the user has already seen (a follow-up replays the whole job's stream), so
 * nothing is printed until the first event of a turn at or after it.
 */
export function createProgressPrinter(write: (line: string) => void, fromSequence: number): ProgressPrinter {
  const prompts = new Map<number, string>();
  const changed = new Set<string>();
  let showing = false;
  let sawTurnCompleted = false;

  const lines = (event: JobStreamEvent): string[] => {
    const data = event.data;
    const sequence = count(data, 'sequence') ?? 0;
    switch (event.type) {
      case 'turn.queued':
        // The command that created this turn has said so already; later ones are someone else's.
        return sequence > fromSequence ? [`… turn ${sequence} queued: ${promptHeadline(text(data, 'prompt') ?? '')}`] : [];
      case 'turn.started': {
        const attempt = count(data, 'attempt') ?? 1;
        const prompt = prompts.get(sequence);
        return [`▸ turn ${sequence} started${attempt > 1 ? ` (attempt ${attempt})` : ''}${prompt ? `: ${promptHeadline(prompt)}` : ''}`];
      }
      case 'step': {
        const calls = Array.isArray(data['toolCalls']) ? (data['toolCalls'] as unknown[]) : [];
        return calls.map((call) => {
          const record = typeof call === 'object' && call !== null ? (call as Record<string, unknown>) : {};
          const argument = text(record, 'argument') ?? '';
          return `  ${record['ok'] === false ? '✗' : '✓'} ${text(record, 'tool') ?? 'tool'}${argument ? ` ${argument}` : ''}`;
        });
      }
      case 'turn.retrying': {
        const wait = count(data, 'inSeconds');
        return [
          `  ↻ attempt ${count(data, 'attempt') ?? '?'} failed (${text(data, 'code') ?? 'error'}: ${text(data, 'message') ?? ''}); retrying${wait === undefined ? '' : ` in ${wait} s`}`,
        ];
      }
      case 'turn.completed': {
        sawTurnCompleted = true;
        const turnFiles = files(data['filesChanged']);
        for (const file of turnFiles) changed.add(file);
        const problems = count(data, 'problems') ?? 0;
        return [
          `✓ turn ${sequence} completed: ${turnFiles.length === 0 ? 'no files changed' : `${turnFiles.length} file${turnFiles.length === 1 ? '' : 's'} changed (${turnFiles.join(', ')})`}`,
          ...indented(text(data, 'finalMessage') ?? ''),
          ...instructionsLine(data['instructions']),
          ...(problems > 0 ? [`  ⚠ ${problems} documentation problem${problems === 1 ? '' : 's'} left (see docwright jobs messages)`] : []),
        ].filter((line) => line.trim() !== '');
      }
      case 'turn.failed':
        return [`✗ turn ${sequence} failed: ${text(data, 'code') ?? 'error'}: ${text(data, 'message') ?? ''}`];
      case 'turn.cancelled':
        return [`✗ turn ${sequence} cancelled`];
      case 'pull_request': {
        const url = text(data, 'url') ?? '';
        // Review controls the forge refused: the pull request stands (docs/agent-jobs.md).
        const warnings = files(data['warnings']).map((warning) => `  ⚠ ${warning}`);
        return [`⇡ pull request ${data['created'] === false ? 'updated' : 'opened'}: ${url}`, ...warnings];
      }
      case 'job.archived':
        return ['■ job archived'];
      default:
        return [];
    }
  };

  return {
    handle(event) {
      if (event.type === 'turn.queued') {
        const sequence = count(event.data, 'sequence');
        const prompt = text(event.data, 'prompt');
        if (sequence !== undefined && prompt !== undefined) prompts.set(sequence, prompt);
      }
      const sequence = count(event.data, 'sequence');
      if (!showing && sequence !== undefined && sequence >= fromSequence) showing = true;
      if (!showing) return;
      for (const line of lines(event)) write(line);
    },
    get filesChanged() {
      return changed;
    },
    get sawTurnCompleted() {
      return sawTurnCompleted;
    },
  };
}
