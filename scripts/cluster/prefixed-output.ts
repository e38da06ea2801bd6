import { createInterface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';

/** ANSI colours for child names, in the order children are started; none is red, kept for errors. */
const COLOURS = [36, 33, 35, 32, 34, 96, 93, 95, 92, 94];

export interface PrefixedOutput {
  /** Copies every line of `stream` to the output, after the child's name. */
  follow(name: string, stream: Readable): void;
  /** A line of the supervisor's own, after `cluster`. */
  say(line: string): void;
  /** Width of the name column; set once every child's name is known. */
  alignTo(names: readonly string[]): void;
}

/**
 * Whether to colour: only on a terminal, never when NO_COLOR is set (no-color.org), always
 * when FORCE_COLOR is set to anything but 0.
 */
export function wantsColour(stream: { isTTY?: boolean }, environment: NodeJS.ProcessEnv): boolean {
  if (environment.FORCE_COLOR !== undefined && environment.FORCE_COLOR !== '0') return true;
  if (environment.NO_COLOR !== undefined && environment.NO_COLOR !== '') return false;
  return stream.isTTY === true;
}

/** `name | line` for every child's line, like foreman or docker compose. */
export function prefixedOutput(output: Writable, colour: boolean): PrefixedOutput {
  const colours = new Map<string, number>();
  let width = 'cluster'.length;
  const label = (name: string): string => {
    const padded = name.padEnd(width);
    if (!colour) return `${padded} |`;
    let code = colours.get(name);
    if (code === undefined) colours.set(name, (code = name === 'cluster' ? 1 : (COLOURS[colours.size % COLOURS.length] ?? 36)));
    return `\u001b[${code}m${padded} |\u001b[0m`;
  };
  return {
    follow(name, stream) {
      const lines = createInterface({ input: stream, crlfDelay: Infinity });
      lines.on('line', (line) => output.write(`${label(name)} ${line}\n`));
    },
    say(line) {
      output.write(`${label('cluster')} ${line}\n`);
    },
    alignTo(names) {
      width = Math.max('cluster'.length, ...names.map((name) => name.length));
    },
  };
}
