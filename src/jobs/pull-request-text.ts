import type { JobProblem } from './job.js';
import type { RefusedFile } from '../agent/tools/index.js';
import { inertBlockquote, inertCodeSpan, inertLine, normaliseUntrustedText } from './inert-markdown.js';

export interface PullRequestTurn {
  sequence: number;
  prompt: string;
  finalMessage: string | null;
  filesChanged: string[];
  commit: string | null;
}

const MAX_TITLE = 72;
const MAX_PROMPT_IN_BODY = 2_000;
const MAX_FINAL_MESSAGE_IN_BODY = 4_000;
// GitHub rejects bodies over 65,536 characters (422): a verbose model must not fail the turn.
const MAX_BODY = 60_000;

function firstLine(text: string): string {
  return (
    text
      .split('\n')
      .map((line) => line.trim())
      .find((line) => line !== '') ?? ''
  );
}

function shorten(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`;
}

/**
 * The pull request's title follows the job's first instruction. Made inert last, after
 * shortening, so that no cut can complete a pattern the sanitiser had broken.
 */
export function pullRequestTitle(firstPrompt: string): string {
  return inertLine(shorten(`Docs: ${firstLine(normaliseUntrustedText(firstPrompt))}`, MAX_TITLE));
}

/**
 * The body tells a reviewer what was asked and what the agent did, turn by turn, and
 * lists any documentation problems the final check still found. Every piece of it that
 * Docwright did not write itself (prompts, the model's messages, file names, check
 * messages) goes through inert-markdown.ts: it is shown, never acted on by the forge.
 */
export function pullRequestBody(input: {
  jobId: string;
  turns: PullRequestTurn[];
  /** The final check's problems; `new: false` marks those the base ref already had. */
  problems: JobProblem[];
  /** Every problem the base already had, counted by kind (the list above may hold only some). */
  preExisting?: Partial<Record<string, number>>;
  refusedFiles?: RefusedFile[];
  /** Why the last turn stopped before the agent finished (a budget): said first, since the work may be incomplete. */
  stoppedEarly?: string;
}): string {
  const sections = [`Opened by Docwright for job ${inertCodeSpan(input.jobId)}. Each instruction below is one agent turn on this branch.`];
  if (input.stoppedEarly !== undefined) {
    sections.push(
      `> [!WARNING]\n> **The last turn stopped before the agent finished:** ${inertLine(input.stoppedEarly)} Its changes so far are committed here for review; they may be incomplete. A follow-up message continues on this branch.`,
    );
  }
  const check = checkSection(input.problems, input.preExisting ?? {});
  // Problems the change introduced come before everything else: a reviewer must see them first.
  const broken = input.problems.some((problem) => problem.new !== false);
  if (broken) sections.push(check);
  for (const turn of input.turns) {
    const lines = [
      `### ${turn.sequence === 1 ? 'Instruction' : `Follow-up ${turn.sequence - 1}`}`,
      '',
      inertBlockquote(shorten(turn.prompt, MAX_PROMPT_IN_BODY)),
      '',
    ];
    const finalMessage = turn.finalMessage?.trim();
    if (finalMessage) lines.push('The agent answered:', '', inertBlockquote(shorten(finalMessage, MAX_FINAL_MESSAGE_IN_BODY)), '');
    if (turn.filesChanged.length > 0) {
      lines.push(
        `Files changed${turn.commit ? ` in ${inertCodeSpan(turn.commit.slice(0, 12))}` : ''}:`,
        ...turn.filesChanged.slice(0, 100).map((file) => `- ${inertCodeSpan(file)}`),
      );
      if (turn.filesChanged.length > 100) lines.push(`- … and ${turn.filesChanged.length - 100} more`);
    } else {
      lines.push('No files changed in this turn.');
    }
    sections.push(lines.join('\n'));
  }
  const refused = input.refusedFiles ?? [];
  if (refused.length > 0) {
    const listed = refused.slice(0, 50).map((file) => `- ${inertCodeSpan(file.path)}: ${inertLine(file.reason)}`);
    if (refused.length > 50) listed.push(`- … and ${refused.length - 50} more`);
    sections.push(
      ['### Changes refused by the write policy', '', 'The agent may only change documentation content; these changes were not committed:', ...listed].join(
        '\n',
      ),
    );
  }
  if (!broken) sections.push(check);
  return limitBody(sections.join('\n\n'));
}

/**
 * What the final check found, new problems first and every one of them listed (up to
 * the kept maximum): a reviewer must never miss a link this change broke behind problems
 * the base branch already had, which are only counted.
 */
function checkSection(problems: readonly JobProblem[], preExisting: Partial<Record<string, number>>): string {
  const introduced = problems.filter((problem) => problem.new !== false);
  const counts = Object.entries(preExisting).filter((entry): entry is [string, number] => (entry[1] ?? 0) > 0);
  const existingTotal = counts.reduce((sum, [, count]) => sum + count, 0);
  const lines = ['### Documentation check', ''];
  if (introduced.length > 0) {
    lines.push(`**${introduced.length} new problem${introduced.length === 1 ? '' : 's'}** introduced by this change:`, '');
    lines.push(
      ...introduced.map(
        (problem) =>
          `- ${inertCodeSpan(`${problem.path}${problem.line ? `:${problem.line}` : ''}`)} (${inertLine(problem.kind)}): ${inertLine(problem.message)}`,
      ),
    );
  } else {
    lines.push('This change introduced no documentation problems.');
  }
  if (existingTotal > 0) {
    const byKind = counts.map(([kind, count]) => `${count} ${inertLine(kind)}`).join(', ');
    lines.push('', `The base branch already had ${existingTotal} problem${existingTotal === 1 ? '' : 's'} (${byKind}); this change did not cause them.`);
  }
  return lines.join('\n');
}

/** Cuts at a line end; cutting only removes text, so what is left stays inert. */
function limitBody(body: string): string {
  if (body.length <= MAX_BODY) return body;
  const cut = body.lastIndexOf('\n', MAX_BODY - 100);
  return `${body.slice(0, cut > 0 ? cut : MAX_BODY - 100)}\n\n… (cut: the full conversation is in the job's messages)`;
}
