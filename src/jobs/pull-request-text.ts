import type { JobProblem } from './job.js';
import type { RefusedFile } from '../agent/tools/index.js';

export interface PullRequestTurn {
  sequence: number;
  prompt: string;
  finalMessage: string | null;
  filesChanged: string[];
  commit: string | null;
}

const MAX_TITLE = 72;
const MAX_PROMPT_IN_BODY = 2_000;

function firstLine(text: string): string {
  return text.split('\n').map((line) => line.trim()).find((line) => line !== '') ?? '';
}

function shorten(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1).trimEnd()}…`;
}

/** The pull request's title follows the job's first instruction. */
export function pullRequestTitle(firstPrompt: string): string {
  return shorten(`Docs: ${firstLine(firstPrompt)}`, MAX_TITLE);
}

/**
 * The body tells a reviewer what was asked and what the agent did, turn by turn, and
 * lists any documentation problems the final check still found.
 */
export function pullRequestBody(input: { jobId: string; turns: PullRequestTurn[]; problems: JobProblem[]; refusedFiles?: RefusedFile[] }): string {
  const sections = [`Opened by Docwright for job \`${input.jobId}\`. Each instruction below is one agent turn on this branch.`];
  for (const turn of input.turns) {
    const lines = [`### ${turn.sequence === 1 ? 'Instruction' : `Follow-up ${turn.sequence - 1}`}`, '', ...shorten(turn.prompt, MAX_PROMPT_IN_BODY).split('\n').map((line) => `> ${line}`), ''];
    if (turn.finalMessage) lines.push(turn.finalMessage.trim(), '');
    if (turn.filesChanged.length > 0) {
      lines.push(`Files changed${turn.commit ? ` in ${turn.commit.slice(0, 12)}` : ''}:`, ...turn.filesChanged.slice(0, 100).map((file) => `- \`${file}\``));
      if (turn.filesChanged.length > 100) lines.push(`- … and ${turn.filesChanged.length - 100} more`);
    } else {
      lines.push('No files changed in this turn.');
    }
    sections.push(lines.join('\n'));
  }
  const refused = input.refusedFiles ?? [];
  if (refused.length > 0) {
    const listed = refused.slice(0, 50).map((file) => `- \`${file.path}\`: ${file.reason}`);
    if (refused.length > 50) listed.push(`- … and ${refused.length - 50} more`);
    sections.push(['### Changes refused by the write policy', '', 'The agent may only change documentation content; these changes were not committed:', ...listed].join('\n'));
  }
  if (input.problems.length > 0) {
    const listed = input.problems.slice(0, 50).map((problem) => `- \`${problem.path}${problem.line ? `:${problem.line}` : ''}\` (${problem.kind}): ${problem.message}`);
    if (input.problems.length > 50) listed.push(`- … and ${input.problems.length - 50} more`);
    sections.push(['### Documentation problems left', '', 'The final `check_docs` run still reports:', ...listed].join('\n'));
  } else {
    sections.push('### Documentation check\n\nThe final `check_docs` run reported no problems.');
  }
  return sections.join('\n\n');
}
