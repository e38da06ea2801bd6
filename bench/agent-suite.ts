/**
 * The `agent` suite of `npm run bench`: what a 40-step exploration costs in context and
 * money. One real job (docwright serve on SQLite, local forge) on a generated Mintlify site
 * of 1,600 pages sized like real ones, against a fake Anthropic Messages API that plays a
 * scripted docs agent (list, docs.json, searches, many long pages, one edit, check_docs)
 * and reports tokens as request characters ÷ 4. The baseline is the naive conversation
 * rebuilt from the same run (no context management, no caching). Method and figures:
 * docs/benchmarks.md, "Agent context and cost".
 */
import { join } from 'node:path';
import { priceOf, SHIPPED_MODEL_PRICES } from '../src/config/model-prices.js';
import type { BenchOptions } from './lib/bench-options.js';
import { metric, type SuiteReport } from './lib/suite-report.js';
import { generateAgentDocsRepository, type AgentDocsRepository } from './agent/agent-docs-repository.js';
import { AGENT_PROMPT, runAgentJob, type AgentJobOutcome } from './agent/agent-job-run.js';
import { requestFigures, type RequestFigures } from './agent/context-figures.js';
import { explorationPlan, FULL_STEPS } from './agent/exploration-plan.js';
import { naiveToolResults } from './agent/naive-tool-results.js';

const FULL_PAGES = 1_600;
/** Anthropic's current Sonnet (src/config/model-prices.json); DOCWRIGHT_BENCH_AGENT_MODEL prices another. */
const MODEL = 'anthropic:claude-sonnet-5-5';
const LARGEST_REQUEST_TARGET = 64_000;
const CUMULATIVE_TARGET = 1_200_000;
const COST_RATIO_TARGET = 0.25;

export async function runAgentBenchmarks(options: BenchOptions): Promise<SuiteReport> {
  const pages = Math.max(100, Math.round(FULL_PAGES * options.scale));
  const steps = Math.max(8, Math.round(FULL_STEPS * options.scale));
  const modelId = process.env.DOCWRIGHT_BENCH_AGENT_MODEL ?? MODEL;
  const price = priceOf(SHIPPED_MODEL_PRICES, modelId);
  if (price === undefined) throw new Error(`the price table (src/config/model-prices.json) has no price for ${modelId}`);
  options.log(`agent: generating a ${pages}-page docs repository`);
  const repository = generateAgentDocsRepository({
    siteDirectory: join(options.dataDir, `docs-site-${pages}`),
    directory: join(options.dataDir, 'agent', `docs-${pages}`),
    pageCount: pages,
  });
  const plan = explorationPlan(repository, steps);
  const naiveResults = await naiveToolResults(repository.directory, plan);
  options.log(`agent: one job of ${plan.length} steps on ${modelId}`);
  const outcome = await runAgentJob({ repository, plan, modelId, serverDirectory: join(options.dataDir, 'agent', 'server'), log: options.log });
  const figures = requestFigures({ requests: outcome.model.requests, answers: outcome.model.answers, naiveResults, price });
  return buildReport({ repository, modelId, steps: plan.length, outcome, figures });
}

const thousands = (value: number): string => Math.round(value).toLocaleString('en-US');
const kilo = (tokens: number): string => `${(tokens / 1000).toFixed(1)}k`;
const dollars = (microUsd: number): string => `$${(microUsd / 1e6).toFixed(2)}`;

function sizeSpread(repository: AgentDocsRepository): string {
  const sizes = repository.pages.map((page) => page.bytes).sort((a, b) => a - b);
  const at = (share: number): string => `${(sizes[Math.floor(share * (sizes.length - 1))]! / 1024).toFixed(1)} KB`;
  const total = sizes.reduce((sum, bytes) => sum + bytes, 0);
  return `pages p50 ${at(0.5)}, p90 ${at(0.9)}, p99 ${at(0.99)}, largest ${at(1)}, ${(total / 1024 / 1024).toFixed(1)} MiB in all; docs.json ${(repository.configBytes / 1024).toFixed(0)} KB`;
}

/** Request sizes at steps 10, 20, 30, 40 (or the last), as the issue gave them. */
function milestones(tokens: readonly number[]): string {
  const at = [10, 20, 30, 40].filter((step) => step <= tokens.length);
  if (at.at(-1) !== tokens.length) at.push(tokens.length);
  return at.map((step) => `${step}: ${kilo(tokens[step - 1]!)}`).join(', ');
}

/** Where the job's time went between model requests: the span, and the longest gap with the tool that ran in it. */
function timeline(outcome: AgentJobOutcome): string {
  const { arrivals, answers } = outcome.model;
  let longest = { gap: 0, request: 0 };
  for (let index = 1; index < arrivals.length; index += 1) {
    const gap = arrivals[index]! - arrivals[index - 1]!;
    if (gap > longest.gap) longest = { gap, request: index };
  }
  const before = answers[longest.request - 1];
  const tool = before === undefined || before.step === -1 ? 'no tool' : ((JSON.parse(before.replyText) as Array<{ name: string }>)[0]?.name ?? '?');
  const span = (arrivals.at(-1)! - arrivals[0]!) / 1000;
  return `first to last model request ${span.toFixed(1)} s, the longest gap ${(longest.gap / 1000).toFixed(1)} s (${tool}, step ${longest.request})`;
}

function buildReport(input: {
  repository: AgentDocsRepository;
  modelId: string;
  steps: number;
  outcome: AgentJobOutcome;
  figures: RequestFigures;
}): SuiteReport {
  const { repository, outcome, figures } = input;
  const largest = Math.max(...figures.requestTokens);
  const completedWithEdit = outcome.status === 'completed' && outcome.prLink !== null && outcome.editOnBranch && outcome.editInPullRequest;
  const recorded = outcome.usage;
  return {
    suite: 'agent',
    title: `agent: context and cost of a ${input.steps}-step exploration job (${thousands(repository.pages.length)} pages, ${input.modelId})`,
    context: [
      `One job through docwright serve (API + worker, SQLite, local forge) in a child process, production budgets, one attempt; the model is test/fakes/fake-model-server.ts speaking Anthropic's Messages API on loopback, tokens estimated as request characters ÷ 4.`,
      `Repository: the docs suite's seeded Mintlify site, pages then grown to a log-normal spread (bench/agent/agent-docs-repository.ts): ${sizeSpread(repository)}.`,
      `Script (bench/agent/exploration-plan.ts): list_files, docs.json, searches, long pages read whole and the longest in 300-line ranges, then read, edit_file, check_docs and read back the page to change. Prompt: "${AGENT_PROMPT}"`,
      'Baseline: the naive conversation rebuilt from the same run: request k = the first request (system, tools, prompt) plus every message of steps 1…k as first sent, whole, at full input price; a result the agent sent shorter than the uncapped result of its tool counts at the uncapped size.',
    ],
    metrics: [
      metric({
        name: 'largest request',
        value: largest,
        unit: 'tokens',
        baseline: { name: 'naive conversation', value: Math.max(...figures.naiveRequestTokens) },
        target: { of: 'value', comparison: 'at-most', limit: LARGEST_REQUEST_TARGET },
      }),
      metric({
        name: 'cumulative input over the run',
        value: figures.inputTokens,
        unit: 'tokens',
        baseline: { name: 'naive conversation', value: figures.naiveInputTokens },
        target: { of: 'value', comparison: 'at-most', limit: CUMULATIVE_TARGET },
      }),
      metric({
        name: 'cost at list price (cache reads and writes as reported)',
        value: figures.costMicroUsd / 1e6,
        unit: 'USD',
        baseline: { name: 'naive conversation, uncached', value: figures.naiveCostMicroUsd / 1e6 },
        target: { of: 'ratio', comparison: 'at-most', limit: COST_RATIO_TARGET },
        ...(figures.cacheReported ? {} : { note: 'the fake reported no cache use: every input token at the full price' }),
      }),
      metric({
        name: 'job completed with its pull request carrying the edit',
        value: completedWithEdit ? 1 : 0,
        unit: 'yes=1',
        target: { of: 'value', comparison: 'at-least', limit: 1 },
        note: `status ${outcome.status}${outcome.error === undefined ? '' : ` (${outcome.error.code}: ${outcome.error.message})`}, prLink ${outcome.prLink === null ? 'none' : 'set'}, edit on the branch ${outcome.editOnBranch ? 'yes' : 'no'}, in the pull request's diff ${outcome.editInPullRequest ? 'yes' : 'no'}`,
      }),
    ],
    notes: [
      `model requests: ${figures.requestTokens.length} (scripted tool steps ${input.steps}); request size at step ${milestones(figures.requestTokens)}; naive ${milestones(figures.naiveRequestTokens)}.`,
      `tokens: input ${thousands(figures.inputTokens)} (cache reads ${thousands(figures.cacheReadTokens)}, cache writes ${thousands(figures.cacheWriteTokens)}), output ${thousands(figures.outputTokens)}; naive input ${thousands(figures.naiveInputTokens)} (${(figures.inputTokens / figures.naiveInputTokens).toFixed(2)}×); cost ${dollars(figures.costMicroUsd)} against ${dollars(figures.naiveCostMicroUsd)}.`,
      `every request, k tokens: ${figures.requestTokens.map((tokens) => (tokens / 1000).toFixed(1)).join(' ')}.`,
      `tool results the agent sent shorter than uncapped (the naive conversation counts them uncapped): ${figures.cappedResults}.`,
      `the job's own usage record: ${recorded === undefined ? 'none' : `input ${thousands(recorded.inputTokens)}, cached ${thousands(recorded.cachedInputTokens)}, output ${thousands(recorded.outputTokens)}, estimated cost ${recorded.estimatedCostUsd === null ? 'none' : `$${recorded.estimatedCostUsd.toFixed(2)}`}`}; job wall clock ${(outcome.milliseconds / 1000).toFixed(1)} s, ${timeline(outcome)}.`,
    ],
  };
}
