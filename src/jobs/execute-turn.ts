import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { LanguageModel } from 'ai';
import { randomBase62 } from '../core/ids.js';
import type { Clock } from '../core/clock.js';
import { createDocsToolset } from '../agent/tools/index.js';
import { runAgent, type AgentStepEvent } from '../agent/run-agent.js';
import { buildSystemPrompt, buildTurnMessages, type ConversationTurn } from '../agent/prompts.js';
import type { Budgets } from '../agent/budgets.js';
import { deriveCommitMessage, prepareWorkspace } from '../git/workspace.js';
import type { Forge, ForgeProject } from '../git/forges/forge.js';
import { secretSpellings } from '../git/git-auth.js';
import type { JobProblem, ToolStepSummary } from './job.js';
import { pullRequestBody, pullRequestTitle, type PullRequestTurn } from './pull-request-text.js';

export interface TurnInput {
  jobId: string;
  projectName: string;
  branch: string;
  baseRef: string;
  model: string;
  prompt: string;
  sequence: number;
  /** Earlier finished turns, oldest first. */
  history: Array<ConversationTurn & { sequence: number; filesChanged: string[]; commit: string | null }>;
}

export interface TurnDependencies {
  forge: Forge;
  forgeProject: ForgeProject;
  resolveModel: (modelId: string) => LanguageModel;
  budgets: Budgets;
  modelRetries: number;
  workspacesDir: string;
  clock: Clock;
  /** Credential values of this process; masked wherever the model could see them. */
  secrets: string[];
  signal: AbortSignal;
  onStep: (step: AgentStepEvent) => Promise<void>;
}

export interface TurnOutcome {
  finalMessage: string;
  steps: ToolStepSummary[];
  usage: { inputTokens: number; outputTokens: number };
  filesChanged: string[];
  commit: string | null;
  problems: JobProblem[];
  pullRequest: { number: number; url: string; created: boolean } | null;
}

/**
 * One agent turn against a fresh clone: the model edits through the sandboxed tools; the
 * orchestrator (never the model) checks the docs, commits, pushes and opens or updates
 * the pull request. Throws the run's DocwrightError (budget, model, git, forge) unchanged.
 */
export async function executeTurn(input: TurnInput, dependencies: TurnDependencies): Promise<TurnOutcome> {
  const { forge, forgeProject, clock, signal } = dependencies;
  // Resolve the model first: a missing credential fails the turn before any clone.
  const model = dependencies.resolveModel(input.model);
  const remote = await forge.remote(forgeProject);
  mkdirSync(dependencies.workspacesDir, { recursive: true });
  const workspace = await prepareWorkspace({
    remoteUrl: remote.url,
    baseRef: input.baseRef,
    branch: input.branch,
    directory: join(dependencies.workspacesDir, `${input.jobId}-${input.sequence}-${randomBase62(6)}`),
    auth: remote.auth,
    clock,
  });
  try {
    const secrets = [...dependencies.secrets, ...secretSpellings(remote.auth)];
    const toolset = createDocsToolset({ workspace: workspace.directory, secrets });
    const result = await runAgent({
      model,
      tools: toolset.tools,
      system: buildSystemPrompt({ projectName: input.projectName }),
      messages: buildTurnMessages(input.history, input.prompt),
      budgets: dependencies.budgets,
      maxRetries: dependencies.modelRetries,
      signal,
      onStep: dependencies.onStep,
    });
    // Nothing changed means nothing to review: skip the final check (a whole-site compile).
    const problems = toolset.changedFiles().length > 0 ? await toolset.checkDocs() : [];
    const filesChanged = await workspace.changedFiles();
    let commit: string | null = null;
    if (filesChanged.length > 0) {
      commit = await workspace.commitAll({ message: deriveCommitMessage({ prompt: input.prompt, changedFiles: filesChanged, summary: result.finalMessage }) });
      if (commit) await workspace.push();
    }
    let pullRequest: TurnOutcome['pullRequest'] = null;
    // An existing branch means earlier commits: keep its PR's text current, and open the
    // PR if the attempt that pushed them died before it could.
    if (commit !== null || workspace.continued) {
      const turns: PullRequestTurn[] = [
        ...input.history.map((turn) => ({ sequence: turn.sequence, prompt: turn.prompt, finalMessage: turn.finalMessage, filesChanged: turn.filesChanged, commit: turn.commit })),
        { sequence: input.sequence, prompt: input.prompt, finalMessage: result.finalMessage, filesChanged, commit },
      ];
      pullRequest = await forge.openOrUpdatePullRequest(forgeProject, {
        base: input.baseRef,
        head: input.branch,
        title: pullRequestTitle(input.history[0]?.prompt ?? input.prompt),
        body: pullRequestBody({ jobId: input.jobId, turns, problems }),
      });
    }
    return {
      finalMessage: result.finalMessage,
      steps: result.steps.flatMap((step) => step.toolCalls.map((call) => ({ toolName: call.toolName, argumentSummary: call.argumentSummary, ok: call.ok, ...(call.error ? { error: call.error } : {}) }))),
      usage: { inputTokens: result.usage.inputTokens, outputTokens: result.usage.outputTokens },
      filesChanged,
      commit,
      problems,
      pullRequest,
    };
  } finally {
    await workspace.remove().catch(() => {});
  }
}
