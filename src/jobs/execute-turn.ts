import { join } from 'node:path';
import type { LanguageModel } from 'ai';
import { randomBase62 } from '../core/ids.js';
import { ensurePrivateDirectory } from '../core/private-files.js';
import type { Clock } from '../core/clock.js';
import { createDocsToolset, RefusalLog, type ToolWorkerPool, type RefusedFile, type WritePolicy, type WritePolicySettings } from '../agent/tools/index.js';
import type { AgentStepEvent } from '../agent/run-agent.js';
import { generateByStreaming } from '../agent/generate-by-streaming.js';
import { withModelCallRetry } from '../agent/model-call-retry.js';
import { runVerified, type VerifiedRunResult } from '../agent/verified-run.js';
import type { ContextLimits } from '../agent/context-window.js';
import type { StopReason } from '../agent/wrap-up.js';
import { budgetExceeded, contextFilled, runCancelled } from '../agent/run-errors.js';
import type { DocwrightError } from '../core/errors.js';
import { buildSystemPrompt, buildTurnMessages, type ConversationTurn } from '../agent/prompts.js';
import { readRepositoryInstructions, type InstructionsLookup } from '../agent/repository-instructions.js';
import { unlessAborted, withDeferredSystem } from '../agent/deferred-system-prompt.js';
import type { InstructionsMemo } from './instructions-memo.js';
import type { Budgets } from '../agent/budgets.js';
import { createAnalyticsTools, type ProjectAnalytics } from '../agent/tools/analytics-tool.js';
import { deriveCommitMessage, prepareWorkspace, type Workspace } from '../git/workspace.js';
import { changedBetween, GitTreeFiles } from '../git/git-tree-files.js';
import type { BaseIndexCache } from '../docs-site/base-index-cache.js';
import type { DocsCheckResult } from '../docs-site/docs-checker.js';
import type { Forge, ForgeProject, PullRequestControls, PullRequestResult, WriteFence } from '../git/forges/forge.js';
import { pushFenced } from '../git/fenced-push.js';
import { secretSpellings } from '../git/git-auth.js';
import type { JobProblem, ToolStepSummary } from './job.js';
import { pullRequestBody, pullRequestTitle, type PullRequestTurn } from './pull-request-text.js';
import { inertLine, inertText } from './inert-markdown.js';

export interface TurnInput {
  jobId: string;
  projectName: string;
  branch: string;
  baseRef: string;
  model: string;
  prompt: string;
  sequence: number;
  /** The project's additions to the built-in write policy. */
  writePolicy?: WritePolicySettings;
  /** Draft, reviewers, labels, auto-merge: applied when the pull request is opened. */
  pullRequestControls?: PullRequestControls;
  /** The pull request number the job has recorded, null while it has none. */
  recordedPullRequest: number | null;
  /** Earlier finished turns, oldest first. */
  history: Array<ConversationTurn & { sequence: number; filesChanged: string[]; commit: string | null }>;
}

export interface TurnDependencies {
  forge: Forge;
  forgeProject: ForgeProject;
  resolveModel: (modelId: string) => LanguageModel;
  /** The job's project's analytics, read-only: adds the `query_analytics` tool. */
  analytics?: ProjectAnalytics;
  budgets: Budgets;
  /** The working context and hard limit of each request, from the model's window (context-window.ts). */
  context: ContextLimits;
  /** Most output tokens one step asks for. */
  maxOutputTokens: number;
  modelRetries: number;
  /** Cap on the repository's AGENTS.md (or the like) in the system prompt; 0: not read at all. */
  repositoryInstructionsMaxBytes: number;
  /** Whether the project's last turn had such a file: decides whether the first request waits for the clone. */
  instructionsMemo: InstructionsMemo;
  /** The docs check's base indexes, kept by the worker process across jobs (per commit). */
  docsBases?: BaseIndexCache;
  /**
   * Worker threads shared by the turns of this process (they idle out on their own); by
   * default each turn starts its own, and a thread loads the parsers before its first task.
   */
  toolWorkers?: ToolWorkerPool;
  workspacesDir: string;
  clock: Clock;
  /** Credential values of this process; masked wherever the model could see them. */
  secrets: string[];
  signal: AbortSignal;
  /** Throws `lease_lost` once the job's lease has passed on: called before the push and the pull request. */
  fence: WriteFence;
  onStep: (step: AgentStepEvent) => Promise<void>;
  /**
   * Takes the workspace's removal, to run once the turn's outcome is committed and
   * announced: deleting thousands of files need not delay the caller's answer.
   */
  deferCleanup: (task: () => Promise<void>) => void;
}

export interface TurnOutcome {
  finalMessage: string;
  steps: ToolStepSummary[];
  usage: { inputTokens: number; outputTokens: number };
  filesChanged: string[];
  commit: string | null;
  problems: JobProblem[];
  /** Problems this turn's changes introduced that the final check still found (after the fix rounds). */
  unresolvedProblems: number;
  /** Rounds in which the model was shown the check's problems to fix (verified-run.ts). */
  fixRounds: number;
  /**
   * Why the run stopped before the model finished (a budget, the context window), or null.
   * The work is committed and in the pull request all the same; the turn is recorded as failed with it.
   */
  stopped: DocwrightError | null;
  /** Changes the write policy kept out: refused by a tool, or unstaged by the commit step. */
  refusedFiles: RefusedFile[];
  pullRequest: PullRequestResult | null;
  /** The repository instruction file the system prompt quoted, and candidates passed over. */
  instructions: InstructionsLookup;
}

/**
 * One agent turn against a fresh clone: the model edits through the sandboxed tools; the
 * orchestrator (never the model) checks the docs, commits, pushes and opens or updates
 * the pull request. Throws the run's DocwrightError (budget, model, git, forge) unchanged.
 */
export async function executeTurn(input: TurnInput, dependencies: TurnDependencies): Promise<TurnOutcome> {
  const { forge, forgeProject, clock, signal } = dependencies;
  // Resolve the model first: a missing credential fails the turn before any clone. Every
  // call streams (no 300 s fetch limit, a cut answer is named as such) and a failed call is
  // retried alone, as the provider asks, not the whole turn.
  const model = withModelCallRetry(generateByStreaming(dependencies.resolveModel(input.model)), { maxRetries: dependencies.modelRetries });
  const remote = await forge.remote(forgeProject);
  // Clones of private repositories: no other local user may look in (see private-files.ts).
  ensurePrivateDirectory(dependencies.workspacesDir, { narrow: true });
  const directory = join(dependencies.workspacesDir, `${input.jobId}-${input.sequence}-${randomBase62(6)}`);
  // The model needs the clone only for the repository's AGENTS.md, so the clone runs while
  // it answers its first request (see below); tools wait for the clone, and a failed clone
  // stops the run.
  const preparing = prepareWorkspace({
    remoteUrl: remote.url,
    baseRef: input.baseRef,
    branch: input.branch,
    directory,
    auth: remote.auth,
    clock,
    branchHint: input.history.some((turn) => turn.commit !== null) ? 'exists' : 'unknown',
  });
  const secrets = [...dependencies.secrets, ...secretSpellings(remote.auth)];
  const maxInstructionBytes = dependencies.repositoryInstructionsMaxBytes;
  // Read from this turn's checkout (the job's branch for a follow-up) before any tool can
  // change it; never rejects (a failed clone reads as no file, and fails the run elsewhere).
  const lookup: Promise<InstructionsLookup> =
    maxInstructionBytes > 0
      ? preparing.then((workspace) => readRepositoryInstructions(workspace.directory, { maxBytes: maxInstructionBytes, secrets })).catch(() => NO_INSTRUCTIONS)
      : Promise.resolve(NO_INSTRUCTIONS);
  const toolset = createDocsToolset({
    workspace: directory,
    secrets,
    ready: Promise.all([preparing, lookup]),
    // The docs check reports what this job broke against what its base ref already had.
    docsBase: async () => {
      const workspace = await preparing;
      const commit = await workspace.baseCommit();
      if (commit === null) throw new Error(`The base ref ${input.baseRef} could not be fetched.`);
      // Named by its commit, the base's index is kept for the next job on it, and the
      // workspace's is that index plus what differs: a follow-up's branch, then the tools' changes.
      return {
        source: new GitTreeFiles(workspace.directory, commit),
        commit,
        startDiff: () => changedBetween(workspace.directory, commit, workspace.startCommit),
      };
    },
    ...(dependencies.docsBases === undefined ? {} : { docsBases: dependencies.docsBases }),
    ...(dependencies.toolWorkers === undefined ? {} : { workers: dependencies.toolWorkers }),
    ...(input.writePolicy ? { writePolicy: input.writePolicy } : {}),
  });
  // Stops the tools' worker threads when the turn is over, however it ended (also those of
  // a check_docs call that a stopped run left behind).
  dependencies.deferCleanup(() => toolset.close());
  const systemFor = (found: InstructionsLookup['found']): string =>
    buildSystemPrompt({ projectName: input.projectName, ...(found === null ? {} : { repositoryInstructions: found }) });
  const withoutFile = systemFor(null);
  const memo = dependencies.instructionsMemo;
  void lookup.then((read) => {
    if (maxInstructionBytes > 0) memo.record(forgeProject.id, read.found !== null);
  });
  // The first request bets that the project has no instruction file, as last time (or
  // never seen): it goes out while the clone runs and its answer is used only if the bet
  // holds. A project that had a file waits for the clone instead of paying for an
  // answer it would drop. See deferred-system-prompt.ts and agent-jobs.md.
  const deferred = withDeferredSystem({
    model,
    system: lookup.then((read) => systemFor(read.found)),
    speculative: memo.hadFile(forgeProject.id) === true ? null : withoutFile,
  });
  const verified = await runWhilePreparing(
    preparing,
    signal,
    async (runSignal) => {
      // A model the wrapper cannot take (an id string, an older spec) waits for the clone.
      const system = deferred === null ? systemFor((await unlessCancelled(lookup, runSignal)).found) : withoutFile;
      return runVerified({
        model: deferred ?? model,
        tools: dependencies.analytics === undefined ? toolset.tools : { ...toolset.tools, ...createAnalyticsTools(dependencies.analytics, () => clock.now()) },
        system,
        messages: buildTurnMessages(input.history, input.prompt),
        budgets: dependencies.budgets,
        context: dependencies.context,
        maxOutputTokens: dependencies.maxOutputTokens,
        // withModelCallRetry does the retries.
        maxRetries: 0,
        signal: runSignal,
        onStep: dependencies.onStep,
        now: () => clock.now(),
        changed: () => toolset.changedFiles().length > 0,
        check: () => toolset.checkDocs(),
      });
    },
    dependencies.deferCleanup,
  );
  const { run: result, check } = verified;
  const workspace = await preparing;
  try {
    const problems = jobProblems(check);
    const newProblems = check?.introduced.length ?? 0;
    const stopped = result.stoppedBy === null ? null : stopError(result.stoppedBy, dependencies, result.usage.totalTokens);
    const committed = await commitAndPush(workspace, input, result.finalMessage, await toolset.policy(), dependencies.fence);
    const { filesChanged, commit, unstaged } = committed;
    const refusedFiles = mergeRefusals(toolset.refusedFiles(), unstaged);
    // Unfinished or broken work is for a person to look at, not to merge: a draft where
    // the forge has drafts (the local forge has none; the body says it either way).
    const attention = stopped !== null || newProblems > 0;
    let pullRequest: TurnOutcome['pullRequest'] = null;
    // An existing branch means earlier commits: keep its PR's text current, and open the
    // PR if the attempt that pushed them died before it could.
    if (commit !== null || workspace.continued) {
      const turns: PullRequestTurn[] = [
        ...input.history.map((turn) => ({
          sequence: turn.sequence,
          prompt: turn.prompt,
          finalMessage: turn.finalMessage,
          filesChanged: turn.filesChanged,
          commit: turn.commit,
        })),
        { sequence: input.sequence, prompt: input.prompt, finalMessage: result.finalMessage, filesChanged, commit },
      ];
      pullRequest = await forge.openOrUpdatePullRequest(
        forgeProject,
        {
          base: input.baseRef,
          head: input.branch,
          title: pullRequestTitle(input.history[0]?.prompt ?? input.prompt),
          body: pullRequestBody({
            jobId: input.jobId,
            turns,
            problems,
            preExisting: check?.existingByKind ?? {},
            refusedFiles,
            ...(stopped === null ? {} : { stoppedEarly: stopped.message }),
          }),
          ...pullRequestControls(input.pullRequestControls, attention && forge.kind !== 'local'),
          recordedNumber: input.recordedPullRequest,
        },
        dependencies.fence,
      );
    }
    return {
      finalMessage: result.finalMessage,
      steps: result.steps.flatMap((step) =>
        step.toolCalls.map((call) => ({
          toolName: call.toolName,
          argumentSummary: call.argumentSummary,
          ok: call.ok,
          ...(call.error ? { error: call.error } : {}),
        })),
      ),
      usage: { inputTokens: result.usage.inputTokens, outputTokens: result.usage.outputTokens },
      filesChanged,
      commit,
      problems,
      unresolvedProblems: newProblems,
      fixRounds: verified.fixRounds,
      stopped,
      refusedFiles,
      pullRequest,
      instructions: await lookup,
    };
  } finally {
    dependencies.deferCleanup(() => workspace.remove());
  }
}

/**
 * Runs the agent under a signal that also fires when the clone fails. When the run
 * fails, the clone's own error (if any) is the one reported, since it is why the run
 * stopped; a workspace that did get cloned is handed over for removal.
 */
async function runWhilePreparing(
  preparing: Promise<Workspace>,
  signal: AbortSignal,
  run: (signal: AbortSignal) => Promise<VerifiedRunResult>,
  deferCleanup: TurnDependencies['deferCleanup'],
): Promise<VerifiedRunResult> {
  const cloneFailed = new AbortController();
  preparing.catch(() => cloneFailed.abort());
  try {
    return await run(AbortSignal.any([signal, cloneFailed.signal]));
  } catch (error) {
    const workspace = await preparing;
    deferCleanup(() => workspace.remove());
    throw error;
  }
}

/** The error a stopped run's turn records: its budget's, or the context window's. */
function stopError(reason: StopReason, dependencies: TurnDependencies, usedTokens: number): DocwrightError {
  return reason === 'context' ? contextFilled(dependencies.context.limitTokens) : budgetExceeded(reason, dependencies.budgets, usedTokens);
}

/**
 * The job's controls, made a draft when the work needs a person's attention (and without
 * auto-merge then: a draft is not ready to merge). Applied only when the pull request is opened.
 */
function pullRequestControls(controls: PullRequestControls | undefined, draft: boolean): { controls?: PullRequestControls } {
  if (!draft) return controls === undefined ? {} : { controls };
  const { autoMerge: _autoMerge, mergeMethod: _mergeMethod, ...rest } = controls ?? {};
  return { controls: { ...rest, draft: true } };
}

const NO_INSTRUCTIONS: InstructionsLookup = { found: null, ignored: [] };

/** The promise's value, or `cancelled` as soon as the run is stopped. */
function unlessCancelled<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return unlessAborted(promise, signal).catch((error: unknown) => {
    throw signal.aborted ? runCancelled() : error;
  });
}

/** The turn keeps this many problems, the new ones first. */
const MAX_KEPT_PROBLEMS = 200;

function jobProblems(result: DocsCheckResult | null): JobProblem[] {
  if (result === null) return [];
  const introduced = result.introduced.map((problem) => ({ ...problem, new: true }));
  const existing = result.existing.map((problem) => ({ ...problem, new: false }));
  return [...introduced, ...existing].slice(0, MAX_KEPT_PROBLEMS);
}

const COMMIT_INPUT_CHARACTERS = 4_000;

/**
 * Stages everything, then takes back out whatever the write policy refuses, whatever put
 * it there (a tool bug, a git filter, a file the clone brought in executable): only
 * documentation reaches the commit.
 */
async function commitAndPush(
  workspace: Workspace,
  input: TurnInput,
  finalMessage: string,
  policy: WritePolicy,
  fence: WriteFence,
): Promise<{ filesChanged: string[]; commit: string | null; unstaged: RefusedFile[] }> {
  const staged = await workspace.stageAllEntries();
  const unstaged: RefusedFile[] = [];
  const filesChanged: string[] = [];
  for (const [index, entry] of staged.entries()) {
    // A check costs some 20 µs; a commit of thousands of files yields now and then.
    if (index % 256 === 255) await new Promise<void>((resolve) => setImmediate(resolve));
    const verdict = policy.checkStaged(entry.path, entry.mode);
    if (verdict.allowed) filesChanged.push(entry.path);
    else unstaged.push({ path: entry.path, reason: verdict.reason });
  }
  if (unstaged.length > 0) await workspace.unstage(unstaged.map((entry) => entry.path));
  if (filesChanged.length === 0) return { filesChanged, commit: null, unstaged };
  // Forges read commit messages too: "Fixes #12" in a merged commit closes the issue.
  // The message keeps a 72-character subject and 2,000 characters of summary, so 4,000 of
  // each input are plenty (and bound the subject regexes, which slow down on long input).
  const message = deriveCommitMessage({
    prompt: inertText(input.prompt.slice(0, COMMIT_INPUT_CHARACTERS)),
    changedFiles: filesChanged.map(inertLine),
    summary: inertText(finalMessage.slice(0, COMMIT_INPUT_CHARACTERS)),
  });
  const commit = await workspace.commitStaged({ message });
  if (commit !== null) await pushFenced(workspace, () => fence());
  return { filesChanged, commit, unstaged };
}

/** One entry per path; the commit step's reason wins, since it is what finally kept the file out. */
function mergeRefusals(byTools: readonly RefusedFile[], byCommit: readonly RefusedFile[]): RefusedFile[] {
  const merged = new RefusalLog();
  for (const refusal of [...byTools, ...byCommit]) merged.record(refusal.path, refusal.reason);
  return merged.list();
}
