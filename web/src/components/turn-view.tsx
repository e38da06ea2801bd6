import type { Turn } from '../api/types';
import { formatDateTime, formatNumber, plural } from '../lib/format';

const TURN_STATUS: Record<Turn['status'], string> = {
  queued: 'Queued',
  running: 'Working…',
  completed: 'Done',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

/** One exchange of the conversation: the prompt, then what the agent did and said. */
export function TurnView({ turn, author }: { turn: Turn; author: string }) {
  const newProblems = turn.problems.filter((problem) => problem.new !== false);
  const oldProblems = turn.problems.length - newProblems.length;
  return (
    <li class="turn" data-turn={turn.sequence}>
      <article class="bubble bubble-prompt" aria-label={`Instruction ${turn.sequence}`}>
        <header class="bubble-header">
          <span class="avatar" aria-hidden="true">
            {author.slice(0, 1).toUpperCase()}
          </span>
          <strong>{turn.sequence === 1 ? 'Instruction' : 'Follow-up'}</strong>
          <time class="muted small" dateTime={turn.createdAt}>
            {formatDateTime(turn.createdAt)}
          </time>
        </header>
        <p class="bubble-text">{turn.prompt}</p>
      </article>
      <article
        class={`bubble bubble-agent turn-${turn.status}`}
        aria-label={`Agent reply ${turn.sequence}`}
        aria-busy={turn.status === 'running' || turn.status === 'queued'}
      >
        <header class="bubble-header">
          <span class="avatar avatar-agent" aria-hidden="true">
            ✦
          </span>
          <strong>Docwright agent</strong>
          <span class={`turn-status turn-status-${turn.status}`}>{TURN_STATUS[turn.status]}</span>
          {turn.finishedAt && (
            <time class="muted small" dateTime={turn.finishedAt}>
              {formatDateTime(turn.finishedAt)}
            </time>
          )}
        </header>
        {turn.steps.length > 0 && (
          <details class="steps">
            <summary>{plural(turn.steps.length, 'tool step')}</summary>
            <ol class="step-list">
              {turn.steps.map((step, index) => (
                <li key={index} class={step.ok ? 'step-ok' : 'step-failed'}>
                  <code>{step.toolName}</code> <span class="step-args">{step.argumentSummary}</span>
                  {!step.ok && <span class="step-error"> — {step.error ?? 'failed'}</span>}
                </li>
              ))}
            </ol>
          </details>
        )}
        {turn.finalMessage && <p class="bubble-text">{turn.finalMessage}</p>}
        {turn.status === 'running' && !turn.finalMessage && <p class="muted">The agent is reading and editing the docs…</p>}
        {turn.error && (
          <div class="alert alert-error" role="alert">
            <p class="alert-title">
              This turn failed <code class="error-code">{turn.error.code}</code>
            </p>
            <p>{turn.error.message}</p>
          </div>
        )}
        {turn.filesChanged.length > 0 && (
          <div class="files-changed">
            <h3 class="small-heading">{plural(turn.filesChanged.length, 'file')} changed</h3>
            <ul class="file-list">
              {turn.filesChanged.map((file) => (
                <li key={file}>
                  <code>{file}</code>
                </li>
              ))}
            </ul>
            {turn.commit && (
              <p class="muted small">
                Commit <code>{turn.commit.slice(0, 12)}</code>
              </p>
            )}
          </div>
        )}
        {turn.refusedFiles.length > 0 && (
          <div class="alert alert-warning">
            <p class="alert-title">Kept out by the write policy</p>
            <ul class="alert-list">
              {turn.refusedFiles.map((file) => (
                <li key={file.path}>
                  <code>{file.path}</code> {file.reason}
                </li>
              ))}
            </ul>
          </div>
        )}
        {turn.warnings.length > 0 && (
          <div class="alert alert-warning turn-warnings">
            <p class="alert-title">The forge refused some pull request options</p>
            <ul class="alert-list">
              {turn.warnings.map((warning) => (
                <li key={warning}>{warning}</li>
              ))}
            </ul>
          </div>
        )}
        {turn.problems.length > 0 && (
          <details class="steps">
            <summary>
              {plural(newProblems.length, 'new docs problem')}
              {oldProblems > 0 && `, ${formatNumber(oldProblems)} already on the base branch`}
            </summary>
            <ul class="step-list">
              {turn.problems.map((problem, index) => (
                <li key={index}>
                  <code>
                    {problem.path}
                    {problem.line ? `:${problem.line}` : ''}
                  </code>{' '}
                  {problem.message} <span class="muted small">({problem.kind})</span>
                </li>
              ))}
            </ul>
          </details>
        )}
        {(turn.usage.inputTokens > 0 || turn.usage.outputTokens > 0) && (
          <p class="muted small">
            {formatNumber(turn.usage.inputTokens)} input and {formatNumber(turn.usage.outputTokens)} output tokens
            {turn.usage.estimatedCostUsd !== null && `, about $${turn.usage.estimatedCostUsd.toFixed(turn.usage.estimatedCostUsd < 1 ? 4 : 2)}`}
          </p>
        )}
      </article>
    </li>
  );
}
