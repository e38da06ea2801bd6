import { z } from 'zod';
import { DIFF_FILE_STATUSES } from '../git/diff-files.js';

export const pullRequestParamsSchema = z.object({
  projectId: z.string().min(1).max(100),
  number: z.coerce.number().int().min(1).max(1_000_000_000),
});

export const pullRequestSchema = z
  .object({
    number: z.number().int(),
    title: z.string(),
    body: z.string().describe('The description as Markdown.'),
    bodyHtml: z
      .string()
      .describe('The description rendered as sanitised HTML (GitHub-flavoured Markdown; raw HTML escaped, only http(s)/mailto links, images shown as links).'),
    status: z.enum(['open', 'merged', 'closed']),
    base: z.string().describe('The branch it merges into.'),
    head: z.string().describe("The job's branch."),
    headCommit: z
      .string()
      .nullable()
      .describe(
        'The commit of head that diff and files show (for a merged pull request, the one it was merged with); send it back as headCommit to merge exactly this. Null when diffAvailable is false.',
      ),
    jobId: z.string().nullable().describe('The agent job that opened it; null if that job was deleted.'),
    files: z.array(
      z.object({
        path: z.string(),
        previousPath: z.string().optional().describe('The old path of a renamed or copied file.'),
        status: z.enum(DIFF_FILE_STATUSES as [string, ...string[]]),
        additions: z.number().int(),
        deletions: z.number().int(),
        binary: z.boolean(),
      }),
    ),
    filesTruncated: z.boolean().describe('More files changed than are listed (3,000).'),
    diff: z.string().describe('Unified diff of head since it left base (base...head); for a merged pull request, what was merged.'),
    diffTruncated: z.boolean().describe('The diff was cut at its last whole line within 1 MiB.'),
    diffAvailable: z.boolean().describe('False when a branch is gone from the repository: diff and files are then empty.'),
    mergeCommit: z.string().nullable().describe('The merge commit on base, once merged (null if base already contained head).'),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'LocalPullRequest' });

/** A full commit id: SHA-1 (40) or SHA-256 (64) hex, as git prints it. */
const commitIdSchema = z.string().regex(/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/, 'a full commit id (40 or 64 lowercase hex digits)');

export const pullRequestMergeSchema = z
  .object({
    headCommit: commitIdSchema.describe(
      "The head commit the reviewer saw (the view's headCommit). If the branch has moved since, nothing is merged and the answer is 409 head_moved.",
    ),
  })
  .meta({ id: 'LocalPullRequestMerge' });

export type PullRequestView = z.infer<typeof pullRequestSchema>;
