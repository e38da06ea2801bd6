import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { GIT_ENVIRONMENT } from '../jobs/generate-docs-repository.js';
import { JobClient } from '../jobs/job-client.js';
import { startJobServer } from '../jobs/job-server.js';
import type { AgentDocsRepository } from './agent-docs-repository.js';
import type { PlannedStep } from './exploration-plan.js';
import { startScriptedAgentModel, type ScriptedAgentModel } from './scripted-agent-model.js';

export interface AgentJobOutcome {
  status: string;
  error?: { code: string; message: string };
  prLink: string | null;
  /** The job's branch holds the edited line, and the pull request's diff adds it. */
  editOnBranch: boolean;
  editInPullRequest: boolean;
  /** The job's own usage record (its estimate of tokens and cost). */
  usage: { inputTokens: number; outputTokens: number; cachedInputTokens: number; estimatedCostUsd: number | null } | undefined;
  /** Create → settled, wall clock. */
  milliseconds: number;
  model: ScriptedAgentModel;
}

export const AGENT_PROMPT =
  'Deliveries are now retried up to 5 times with exponential backoff, not 3 times a minute apart. Find where the docs say otherwise and correct them.';
const FINAL_TEXT = 'Updated the delivery retry guidance: deliveries are retried up to 5 times with exponential backoff. check_docs reports no new problems.';

function branchFile(repository: string, branch: string, path: string): string {
  try {
    return execFileSync('git', ['show', `${branch}:${path}`], { cwd: repository, env: GIT_ENVIRONMENT, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  } catch {
    return '';
  }
}

/**
 * One real job: `docwright serve` (API + worker, SQLite, local forge) in a child process,
 * the model an Anthropic Messages API fake on loopback playing `plan`. The job runs with
 * the production budgets and a single attempt: a failure is the finding, not something to
 * retry past.
 */
export async function runAgentJob(input: {
  repository: AgentDocsRepository;
  plan: readonly PlannedStep[];
  modelId: string;
  serverDirectory: string;
  log: (message: string) => void;
}): Promise<AgentJobOutcome> {
  const model = await startScriptedAgentModel(input.plan, FINAL_TEXT);
  rmSync(input.serverDirectory, { recursive: true, force: true });
  let server: Awaited<ReturnType<typeof startJobServer>> | undefined;
  try {
    server = await startJobServer({
      dataDir: input.serverDirectory,
      modelUrl: model.url,
      repositories: { docs: input.repository.directory },
      environment: {
        DOCWRIGHT_MODEL: input.modelId,
        DOCWRIGHT_ANTHROPIC_BASE_URL: model.url,
        ANTHROPIC_API_KEY: 'bench-fake-anthropic-key',
        DOCWRIGHT_JOB_MAX_ATTEMPTS: '1',
        DOCWRIGHT_AGENT_RANGES_REFRESH_HOURS: '0',
      },
    });
    const project = server.projects.docs;
    if (project === undefined) throw new Error('the benchmark server did not create its project');
    const client = new JobClient(server.url, project.projectId, project.apiKey);
    try {
      const created = await client.create(AGENT_PROMPT);
      input.log(`agent: job ${created.id} created, ${input.plan.length} scripted steps`);
      const settled = await client.waitForSettled(created.id, 10 * 60_000);
      const job = (await client.get(created.id)) as Awaited<ReturnType<JobClient['get']>> & { usage?: AgentJobOutcome['usage'] };
      const branch = `docwright/${created.id}`;
      const editOnBranch = branchFile(input.repository.directory, branch, input.repository.edit.page).includes(input.repository.edit.after);
      let editInPullRequest = false;
      if (settled.prLink !== null) {
        const link = new URL(settled.prLink);
        const page = await fetch(`${server.url}/v1${link.pathname}${link.search}`);
        const pull = (await page.json()) as { diff?: string };
        editInPullRequest = page.ok && (pull.diff ?? '').includes(`+${input.repository.edit.after}`);
      }
      return {
        status: settled.status,
        ...(settled.error ? { error: settled.error } : {}),
        prLink: settled.prLink,
        editOnBranch,
        editInPullRequest,
        usage: job.usage,
        milliseconds: settled.settledAt - created.sentAt,
        model,
      };
    } finally {
      client.close();
    }
  } finally {
    await server?.stop();
    await model.close();
  }
}
