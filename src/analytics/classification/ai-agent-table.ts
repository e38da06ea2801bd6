import { z } from 'zod';
import { DocwrightError } from '../../core/errors.js';
import { AI_AGENT_CLASSES, type AiAgentClass } from './hit-class.js';
import type { HitCategory } from './hit-category.js';
import rawTable from './ai-agents.json' with { type: 'json' };

/** One known AI agent: the product token it sends and how hits carrying it are labelled. */
export interface AiAgentEntry {
  /** The user-agent product token, matched as a whole word, case-insensitively. */
  token: string;
  /** Display name for reports ("ChatGPT", "GPTBot"). */
  name: string;
  operator: string;
  class: AiAgentClass;
  /** The finer label (docs/classification.md); it always agrees with `class` (CATEGORY_CLASS). */
  category: AiAgentCategory;
  /** Where the operator (or, failing that, a public registry) documents the token. */
  source: string;
  /** A robots.txt control token that the operator never sends as a user agent. */
  robotsOnly: boolean;
  note: string | null;
}

export interface AiAgentTable {
  version: string;
  entries: readonly AiAgentEntry[];
}

/** The categories an entry of the AI agent table may carry. */
export type AiAgentCategory = Extract<HitCategory, 'ai-assistant' | 'ai-agent' | 'ai-coding-agent' | 'ai-search' | 'ai-training'>;

/** The class each table category counts as: assistants, agents and coding agents are the spec's `ai`. */
export const CATEGORY_CLASS: Readonly<Record<AiAgentCategory, AiAgentClass>> = Object.freeze({
  'ai-assistant': 'ai',
  'ai-agent': 'ai',
  'ai-coding-agent': 'ai',
  'ai-search': 'ai-search',
  'ai-training': 'ai-training',
});

const httpsUrl = z.url().refine((value) => value.startsWith('https://'), 'must be an https URL');

const entrySchema = z.object({
  token: z.string().trim().min(2),
  name: z.string().trim().min(1),
  operator: z.string().trim().min(1),
  class: z.enum(AI_AGENT_CLASSES as [AiAgentClass, ...AiAgentClass[]]),
  category: z.enum(Object.keys(CATEGORY_CLASS) as [AiAgentCategory, ...AiAgentCategory[]]),
  source: httpsUrl,
  robotsOnly: z.boolean().optional(),
  note: z.string().optional(),
});

const tableSchema = z.object({
  // A date, so a stored hit's table version sorts and reads as "classified with the table of".
  version: z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD'),
  description: z.string().optional(),
  entries: z.array(entrySchema).min(1),
});

/**
 * Validates raw table data. A malformed table is a packaging bug, so it stops start-up
 * rather than silently classifying with half a table.
 */
export function parseAiAgentTable(raw: unknown): AiAgentTable {
  const parsed = tableSchema.safeParse(raw);
  if (!parsed.success) {
    const errors = parsed.error.issues.map((issue) => ({ path: issue.path.map(String).join('.'), message: issue.message }));
    throw new DocwrightError('invalid_agent_table', 'The AI agent table is malformed.', { status: 500, errors });
  }
  const seen = new Set<string>();
  for (const entry of parsed.data.entries) {
    const key = entry.token.toLowerCase();
    if (seen.has(key)) {
      throw new DocwrightError('invalid_agent_table', `The AI agent table lists the token "${entry.token}" twice.`, {
        status: 500,
      });
    }
    seen.add(key);
    if (CATEGORY_CLASS[entry.category] !== entry.class) {
      throw new DocwrightError('invalid_agent_table', `The AI agent table files "${entry.token}" as ${entry.category} but class ${entry.class}.`, {
        status: 500,
      });
    }
  }
  return {
    version: parsed.data.version,
    entries: parsed.data.entries.map((entry) => ({
      token: entry.token,
      name: entry.name,
      operator: entry.operator,
      class: entry.class,
      category: entry.category,
      source: entry.source,
      robotsOnly: entry.robotsOnly ?? false,
      note: entry.note ?? null,
    })),
  };
}

export const AI_AGENT_TABLE: AiAgentTable = parseAiAgentTable(rawTable);

/** Recorded with every stored hit so history can be reclassified when the table changes. */
export const AI_AGENT_TABLE_VERSION: string = AI_AGENT_TABLE.version;
