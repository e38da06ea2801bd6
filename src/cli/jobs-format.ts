import type { Job, JobList, JobTurn } from './jobs-api.js';
import { printFields, printTable } from './output.js';

const write = (text: string): void => void process.stdout.write(text);

/** A job as `label  value` lines, after a headline with its id and status. */
export function printJob(job: Job, headline = `Job ${job.id} (${job.status})`): void {
  write(`${headline}\n`);
  printFields([
    ['status', job.status],
    ['pull request', job.prLink ?? (job.status === 'active' ? 'none yet' : 'none')],
    ['model', job.model],
    ['repository', job.source.repository],
    ['ref', job.source.ref],
    ['created', job.createdAt],
    ['updated', job.updatedAt],
    ['archived', job.archivedAt],
    ['error', job.error ? `${job.error.code}: ${job.error.message}` : null],
  ]);
}

export function printJobList(list: JobList, offset: number): void {
  if (list.jobs.length === 0) {
    write(offset > 0 ? `No jobs after the first ${offset}.\n` : 'No jobs yet. Create one with: docwright jobs create --prompt TEXT\n');
    return;
  }
  printTable(
    ['ID', 'STATUS', 'CREATED', 'PULL REQUEST', 'ERROR'],
    list.jobs.map((job) => [job.id, job.status, job.createdAt, job.prLink, job.error?.code ?? null]),
  );
  if (list.hasMore) write(`\nMore jobs: docwright jobs list --offset ${offset + list.jobs.length}\n`);
}

function duration(turn: JobTurn): string {
  if (turn.startedAt === null || turn.finishedAt === null) return '';
  const seconds = (Date.parse(turn.finishedAt) - Date.parse(turn.startedAt)) / 1000;
  return ` in ${seconds < 10 ? seconds.toFixed(1) : Math.round(seconds)} s`;
}

/** The conversation: each prompt, the agent's tool steps, its answer and what it left behind. */
export function printConversation(turns: JobTurn[]): void {
  if (turns.length === 0) return write('No messages.\n');
  turns.forEach((turn, index) => {
    if (index > 0) write('\n');
    write(`#${turn.sequence} ${turn.status}${duration(turn)}  (${turn.createdAt})\n`);
    for (const line of turn.prompt.trim().split(/\r?\n/)) write(`> ${line}\n`);
    for (const step of turn.steps) {
      write(`  ${step.ok ? '✓' : '✗'} ${step.toolName}${step.argumentSummary ? ` ${step.argumentSummary}` : ''}${step.error ? `: ${step.error}` : ''}\n`);
    }
    if (turn.finalMessage) {
      write('\n');
      for (const line of turn.finalMessage.trim().split(/\r?\n/)) write(`  ${line}\n`);
    }
    const facts: string[] = [];
    if (turn.status === 'completed') facts.push(turn.filesChanged.length === 0 ? 'no files changed' : `files changed: ${turn.filesChanged.join(', ')}`);
    if (turn.commit) facts.push(`commit ${turn.commit.slice(0, 12)}`);
    if (turn.usage.inputTokens + turn.usage.outputTokens > 0) facts.push(`tokens ${turn.usage.inputTokens} in, ${turn.usage.outputTokens} out`);
    if (facts.length > 0) write(`\n  ${facts.join(' · ')}\n`);
    for (const problem of turn.problems) write(`  ⚠ ${problem.path}${problem.line === undefined ? '' : `:${problem.line}`}: ${problem.message}\n`);
    if (turn.error) write(`  ✗ ${turn.error.code}: ${turn.error.message}\n`);
  });
}
