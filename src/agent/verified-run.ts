import type { ModelMessage } from 'ai';
import type { DocsCheckResult } from '../docs-site/docs-checker.js';
import type { DocsProblem } from '../docs-site/docs-problem.js';
import type { Budgets } from './budgets.js';
import { runAgent, type AgentRunResult, type RunAgentOptions } from './run-agent.js';
import { addUsage } from './step-summary.js';

/**
 * Rounds in which the model is shown what the final check found and asked to fix it, and
 * the steps each may take. Enough for a typo'd link or an unclosed tag in a few files; a
 * model that cannot fix them in that many steps rarely does with more, and the pull
 * request then opens as a draft that lists them.
 */
export const FIX_ROUNDS = 2;
export const FIX_STEPS = 6;
/** Problems listed in one fix request; the rest are counted. */
const LISTED_PROBLEMS = 50;

export interface VerifiedRunOptions extends RunAgentOptions {
  /** Whether the tools changed anything: nothing changed, nothing to check. */
  changed: () => boolean;
  /** The docs check of the workspace against the job's base (the toolset's final check). */
  check: () => Promise<DocsCheckResult>;
}

export interface VerifiedRunResult {
  run: AgentRunResult;
  /** The last check's result; null when nothing changed. */
  check: DocsCheckResult | null;
  /** Fix rounds the model was given. */
  fixRounds: number;
}

/**
 * The agent's run, then Docwright's own docs check: a model that never called
 * `check_docs`, or ignored what it said, is shown the problems its change introduced (file,
 * line, message) and gets a few more steps to fix them, up to `FIX_ROUNDS` times. A run
 * stopped by a budget is not extended: its work is checked and kept as it is.
 */
export async function runVerified(options: VerifiedRunOptions): Promise<VerifiedRunResult> {
  const now = options.now ?? Date.now;
  const startedAt = now();
  let run = await runAgent(options);
  if (!options.changed()) return { run, check: null, fixRounds: 0 };
  let check = await options.check();
  let fixRounds = 0;
  while (run.stoppedBy === null && check.introduced.length > 0 && fixRounds < FIX_ROUNDS) {
    const budgets = remaining(options.budgets, run, now() - startedAt);
    if (budgets === null) break;
    fixRounds += 1;
    const fix = await runAgent({
      ...options,
      messages: [...run.messages, fixRequest(check.introduced)],
      pinned: options.pinned ?? options.messages.length,
      budgets,
      firstStepNumber: (options.firstStepNumber ?? 0) + run.steps.length,
    });
    run = {
      finalMessage: fix.finalMessage === '' ? run.finalMessage : fix.finalMessage,
      steps: [...run.steps, ...fix.steps],
      usage: addUsage(run.usage, fix.usage),
      messages: fix.messages,
      stoppedBy: fix.stoppedBy,
    };
    check = await options.check();
  }
  return { run, check, fixRounds };
}

/** What a fix round may spend: its own steps, and what is left of the turn's tokens and time. Null: nothing left. */
function remaining(budgets: Budgets, run: AgentRunResult, elapsedMs: number): Budgets | null {
  const maxTokens = budgets.maxTokens - run.usage.totalTokens;
  const maxDurationMs = budgets.maxDurationMs - elapsedMs;
  if (maxTokens <= 0 || maxDurationMs <= 1_000) return null;
  return { maxSteps: FIX_STEPS, maxTokens, maxDurationMs };
}

function describe(problem: DocsProblem): string {
  return `- ${problem.path}${problem.line === undefined ? '' : `:${problem.line}`} (${problem.kind}): ${problem.message}`;
}

/** The user message of a fix round. */
export function fixRequest(problems: readonly DocsProblem[]): ModelMessage {
  const listed = problems.slice(0, LISTED_PROBLEMS).map(describe);
  if (problems.length > LISTED_PROBLEMS) listed.push(`- … and ${problems.length - LISTED_PROBLEMS} more`);
  return {
    role: 'user',
    content: [
      `[Docwright] Before opening the pull request, Docwright checked the docs: your changes introduced ${problems.length} problem${problems.length === 1 ? '' : 's'} that the base branch did not have. Fix ${problems.length === 1 ? 'it' : 'them'} now, run check_docs to confirm, then reply with your summary of the whole change. Problems that remain are listed in the pull request, which opens as a draft.`,
      '',
      ...listed,
    ].join('\n'),
  };
}
