import { tool, type ToolSet } from 'ai';
import { z } from 'zod';

/** A tiny in-memory tool set for driving the agent loop in tests. */
export function createNoteTools(): { notes: Map<string, string>; tools: ToolSet } {
  const notes = new Map<string, string>();
  const tools = {
    write_note: tool({
      description: 'Write a note to a path.',
      inputSchema: z.object({ path: z.string(), content: z.string() }),
      execute: async ({ path, content }) => {
        if (path.includes('..')) throw new Error(`path ${path} escapes the notebook`);
        notes.set(path, content);
        return { ok: true, path, bytes: content.length };
      },
    }),
    read_note: tool({
      description: 'Read a note.',
      inputSchema: z.object({ path: z.string() }),
      execute: async ({ path }) => {
        const content = notes.get(path);
        return content === undefined ? { ok: false, error: `no note at ${path}` } : { ok: true, content };
      },
    }),
  };
  return { notes, tools };
}
