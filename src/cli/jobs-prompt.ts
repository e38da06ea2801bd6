import { readFile } from 'node:fs/promises';

export interface PromptSource {
  prompt?: string;
  promptFile?: string;
}

export type PromptReading = { ok: true; prompt: string } | { ok: false; usage: string };

async function readStandardInput(): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write('Reading the prompt from stdin; end it with Ctrl-D.\n');
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The prompt from exactly one of --prompt and --prompt-file (`-` is stdin). The text is
 * sent as given, also when empty: the server's validation answers with the field error.
 */
export async function readPrompt(source: PromptSource): Promise<PromptReading> {
  if (source.prompt !== undefined && source.promptFile !== undefined) return { ok: false, usage: 'use either --prompt or --prompt-file, not both' };
  if (source.prompt !== undefined) return { ok: true, prompt: source.prompt };
  if (source.promptFile === undefined) return { ok: false, usage: "required option '--prompt <text>' (or --prompt-file <file>) not specified" };
  if (source.promptFile === '-') return { ok: true, prompt: await readStandardInput() };
  try {
    return { ok: true, prompt: await readFile(source.promptFile, 'utf8') };
  } catch (error) {
    return { ok: false, usage: `cannot read --prompt-file ${source.promptFile}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}` };
  }
}
