import { z } from 'zod';
import { JOB_STATUSES, PULL_REQUEST_STATUSES } from './job.js';
import { gitRefSchema } from '../projects/project-input.js';

export const MAX_PROMPT_LENGTH = 32_000;

export const usageSchema = z
  .object({
    inputTokens: z.number().int().describe('Input tokens, cached ones included, as the AI SDK reports them.'),
    outputTokens: z.number().int(),
    cachedInputTokens: z.number().int().describe("Of the input tokens, those read from the provider's prompt cache."),
    cacheWriteTokens: z
      .number()
      .int()
      .describe(
        "Of the input tokens, those written to the provider's prompt cache (Anthropic bills them above the input price; 0 where a provider does not report writes).",
      ),
    estimatedCostUsd: z
      .number()
      .nullable()
      .describe('Estimated cost in US dollars from the price table (README, DOCWRIGHT_MODEL_PRICES_FILE); null when the model has no price.'),
  })
  .meta({ id: 'AgentUsage' });

export const jobSchema = z
  .object({
    id: z.string().describe('Unique identifier of the agent job.'),
    status: z.enum(JOB_STATUSES as [string, ...string[]]).describe('active, completed, archived or failed. Poll until it is not active.'),
    source: z.object({ repository: z.string(), ref: z.string() }).describe('The docs repository and the base branch the pull request targets.'),
    model: z.string().describe('The model id used, provider:model.'),
    prLink: z.string().nullable().describe('URL of the pull request; null until one exists, or when no files were changed.'),
    prStatus: z
      .enum(PULL_REQUEST_STATUSES as [string, ...string[]])
      .nullable()
      .describe(
        "Addition: the state of a local-forge pull request (open, merged, closed), changed by the dashboard's merge and close; null for GitHub and GitLab projects and while the job has no pull request.",
      ),
    createdAt: z.string().describe('ISO 8601.'),
    archivedAt: z.string().nullable(),
    updatedAt: z.string().describe('Addition: when the job last changed state.'),
    error: z
      .object({ code: z.string(), message: z.string() })
      .nullable()
      .describe(
        'Addition: why the job failed (e.g. model_not_configured, model_unavailable, budget_exceeded, context_window_exceeded, model_error, cancelled). A budget_exceeded or context_window_exceeded job kept its work: prLink is set when it changed files.',
      ),
    unresolvedProblems: z
      .number()
      .int()
      .describe(
        "Addition: documentation problems the job's last turn introduced that Docwright's final docs check still found after giving the agent its fix rounds (0: none). Listed first in the pull request, which then opens as a draft where the forge has drafts, and in the turn's problems (new: true).",
      ),
    // Addition: the tokens and estimated cost of the job's turns so far.
    usage: usageSchema,
  })
  .meta({ id: 'AgentJob' });

export const promptBodySchema = z.object({
  prompt: z
    .string({ error: 'must be a string' })
    .min(1, 'must be at least 1 character')
    .max(MAX_PROMPT_LENGTH, `must be at most ${MAX_PROMPT_LENGTH} characters`)
    // Only spaces and newlines would start a job with nothing to do and list as an empty row.
    .refine((prompt) => prompt.trim() !== '', 'must not be only whitespace')
    .describe(`The instruction for the agent, 1 to ${MAX_PROMPT_LENGTH} characters, not only whitespace.`),
});

/** GitHub logins and GitLab usernames: letters, digits, `-`, `_`, `.`; GitHub teams as `org/team`. */
const reviewerSchema = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9_])?(?:\/[A-Za-z0-9._-]+)?$/, 'must be a user name (or org/team on GitHub)');

/**
 * The optional controls of create (all validated here; jobs, hooks, mcp and the SDK take
 * them as they are). `branchName` is a git branch name below `docwright/`.
 */
export const createBodySchema = promptBodySchema
  .extend({
    ref: gitRefSchema.optional().describe("The branch to start from and to open the pull request against; default the project's ref."),
    branchName: gitRefSchema
      .refine((name) => name.length <= 100 && !name.startsWith('docwright/'), 'must be at most 100 characters, without the docwright/ prefix')
      .optional()
      .describe(
        'The branch the agent pushes to, as docwright/{branchName}; unique among the jobs of the repository (409 branch_taken). Default docwright/{jobId}.',
      ),
    draft: z
      .boolean()
      .optional()
      .describe(
        'Open the pull request as a draft. GitHub: a draft pull request; GitLab: a draft merge request (its title starts with "Draft: "). Default false.',
      ),
    reviewers: z
      .array(reviewerSchema)
      .max(15)
      .optional()
      .describe(
        'Reviewers requested when the pull request is opened. GitHub: logins, or org/team for a team; GitLab: usernames (resolved to user ids; org/team is a 400). One the forge does not know or refuses is a warning on the pull_request event, not a failure.',
      ),
    labels: z
      .array(z.string().trim().min(1).max(50))
      .max(20)
      .optional()
      .describe('Labels added when the pull request is opened (GitHub and GitLab; created if missing). On GitLab a label may not contain a comma.'),
    autoMerge: z
      .boolean()
      .optional()
      .describe(
        "Merge the pull request once the forge's requirements pass. GitHub: auto-merge (the repository must allow it); GitLab: auto-merge / merge when the pipeline succeeds. A refusal is a warning on the pull_request event. Local forge: 400 auto_merge_unsupported. Not with draft.",
      ),
    mergeMethod: z
      .enum(['merge', 'squash', 'rebase'])
      .optional()
      .describe(
        "With autoMerge: how the forge merges. GitHub: merge, squash or rebase (default: GitHub's, a merge commit); GitLab: merge or squash (the project's merge method applies; rebase is a 400).",
      ),
  })
  .superRefine((body, context) => {
    if (body.autoMerge === true && body.draft === true) {
      context.addIssue({ code: 'custom', path: ['autoMerge'], message: 'cannot be combined with draft: a draft is not ready to merge' });
    }
    if (body.mergeMethod !== undefined && body.autoMerge !== true) {
      context.addIssue({ code: 'custom', path: ['mergeMethod'], message: 'needs autoMerge: true' });
    }
  });

export const jobParamsSchema = z.object({
  projectId: z.string().min(1).max(100),
  id: z.string().min(1).max(100),
});

export const listQuerySchema = z.object({
  status: z.enum(JOB_STATUSES as [string, ...string[]]).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(20),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
});

export const turnSchema = z
  .object({
    sequence: z.number().int(),
    prompt: z.string(),
    status: z.enum(['queued', 'running', 'completed', 'failed', 'cancelled']),
    finalMessage: z.string().nullable(),
    steps: z.array(z.object({ toolName: z.string(), argumentSummary: z.string(), ok: z.boolean(), error: z.string().optional() })),
    filesChanged: z.array(z.string()),
    commit: z.string().nullable(),
    problems: z
      .array(
        z.object({
          path: z.string(),
          line: z.number().optional(),
          message: z.string(),
          kind: z.string(),
          new: z.boolean().optional().describe('true: introduced by the job; false: the base ref already had it. New problems come first.'),
        }),
      )
      .describe('Documentation problems the final check of the turn found (at most 200, new ones first).'),
    refusedFiles: z
      .array(z.object({ path: z.string(), reason: z.string() }))
      .describe("Changes the project's write policy kept out of the commit (the agent may only change documentation content)."),
    warnings: z
      .array(z.string())
      .describe(
        'Pull request controls the forge refused when this turn opened (or adopted) the pull request: a reviewer it does not know, auto-merge not allowed. The pull request stands; see docs/agent-jobs.md.',
      ),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
    usage: usageSchema,
    createdAt: z.string(),
    startedAt: z.string().nullable(),
    finishedAt: z.string().nullable(),
  })
  .meta({ id: 'AgentJobTurn' });
