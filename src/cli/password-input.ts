import { readFileSync } from 'node:fs';
import { InvalidArgumentError } from 'commander';

/** Reads one line from the terminal without echoing it (raw mode); Ctrl-C exits with 130. */
function promptHidden(question: string): Promise<string> {
  const input = process.stdin;
  process.stderr.write(question);
  input.setRawMode(true);
  input.setEncoding('utf8');
  input.resume();
  return new Promise((resolve) => {
    let value = '';
    const finish = (): void => {
      input.off('data', onData);
      input.setRawMode(false);
      input.pause();
      process.stderr.write('\n');
    };
    const onData = (chunk: string): void => {
      for (const char of chunk) {
        if (char === '\r' || char === '\n' || char === '\u0004') {
          finish();
          return resolve(value);
        }
        if (char === '\u0003') {
          finish();
          process.exit(130);
        }
        if (char === '\u007f' || char === '\b') value = value.slice(0, -1);
        else value += char;
      }
    };
    input.on('data', onData);
  });
}

/**
 * A new password: typed twice at a prompt that does not echo when stdin is a terminal,
 * else the first line of standard input (for scripts: `printf '%s\n' "$PW" | docwright …`).
 * Never an argument, so it stays out of shell history and `ps`.
 */
export async function readNewPassword(): Promise<string> {
  if (process.stdin.isTTY) {
    const first = await promptHidden('Password: ');
    const second = await promptHidden('Repeat the password: ');
    if (first !== second) throw new InvalidArgumentError('The passwords do not match.');
    return first;
  }
  const text = readFileSync(0, 'utf8');
  const newline = text.search(/\r?\n/);
  return newline === -1 ? text : text.slice(0, newline);
}
