import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { isDocwrightError } from '../core/errors.js';
import type { DocwrightApi } from './mcp-api.js';
import { JOB_STATUSES, type JobStatus } from '../jobs/job.js';
import { createBodySchema, MAX_PROMPT_LENGTH } from '../jobs/job-schemas.js';

/** Bounds of the tools' answers: an MCP client hands them to a model, so they stay small. */
export const MCP_LIMITS = {
  maxListJobs: 50,
  defaultListJobs: 20,
  maxVisitors: 50,
  defaultVisitors: 20,
  maxAgents: 50,
  defaultAgents: 20,
  maxMessageChars: 4_000,
} as const;

const jobId = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[A-Za-z0-9_-]+$/, 'must be a job id (letters, digits, _ and -)')
  .describe('The job id, as create_job or list_jobs answered it.');
const prompt = z.string().min(1).max(MAX_PROMPT_LENGTH).describe(`The instruction for the agent, 1 to ${MAX_PROMPT_LENGTH} characters.`);
const date = z.string().min(10).max(40).describe('YYYY-MM-DD or an ISO 8601 date-time, UTC.');
/** An optional row count: `what` names the rows in the description. */
const limitField = (what: string, defaultRows: number, maxRows: number) =>
  z.number().int().min(1).max(maxRows).optional().describe(`${what}, default ${defaultRows}, at most ${maxRows}.`);
const offsetField = z.number().int().min(0).max(1_000_000).optional().describe('Rows to skip (page with it while hasMore is true).');
const range = { dateFrom: date.optional().describe('Inclusive start (default: open).'), dateTo: date.optional().describe('Exclusive end (default: open).') };

interface Turn {
  sequence: number;
  status: string;
  finalMessage: string | null;
  filesChanged: string[];
  problems?: unknown[];
}

const text = (value: unknown): CallToolResult => ({ content: [{ type: 'text', text: JSON.stringify(value) }] });

/** A refusal the caller can act on (the API's code and detail); anything else without internals. */
function toolError(error: unknown): CallToolResult {
  if (isDocwrightError(error) && (error.status < 500 || error.code === 'server_unreachable')) {
    const details = (error.errors ?? []).map((field) => `${field.path}: ${field.message}`);
    return { isError: true, content: [{ type: 'text', text: [`${error.code}: ${error.message}`, ...details].join('\n') }] };
  }
  if (isDocwrightError(error)) return { isError: true, content: [{ type: 'text', text: `${error.code}: the server could not answer; try again later.` }] };
  return { isError: true, content: [{ type: 'text', text: 'internal_error: the request failed; try again later.' }] };
}

const clip = (value: string | null): string | null =>
  value !== null && value.length > MCP_LIMITS.maxMessageChars ? `${value.slice(0, MCP_LIMITS.maxMessageChars)}…` : value;

export interface McpServerOptions {
  api: DocwrightApi;
  /** The project every tool acts on: the admin key's own (a key opens one project only). */
  projectId: string;
  version: string;
}

/**
 * Docwright's MCP server: the agent-job and analytics tools of one project, each a call of
 * the public HTTP API through `api` (mcp-api.ts). Tool inputs are zod schemas (bad input is
 * a tool error, not a protocol error); API refusals are tool errors with the API's code.
 */
export function createMcpServer(options: McpServerOptions): McpServer {
  const { api } = options;
  const project = encodeURIComponent(options.projectId);
  const jobPath = (id: string): string => `/v2/agent/${project}/job/${encodeURIComponent(id)}`;
  const server = new McpServer(
    { name: 'docwright', version: options.version },
    {
      instructions:
        'Docwright runs AI agents that edit this project\'s documentation and open pull requests, and reports its visitors (humans and AI). Create a job with create_job, then poll get_job until its status is not "active".',
    },
  );
  const run =
    <Input>(work: (input: Input) => Promise<unknown>) =>
    async (input: Input): Promise<CallToolResult> => {
      try {
        return text(await work(input));
      } catch (error) {
        return toolError(error);
      }
    };

  server.registerTool(
    'create_job',
    {
      title: 'Create agent job',
      description:
        'Start an agent job: the agent edits the docs repository by the prompt and opens a pull request. The optional controls are those of the HTTP API (ref, branchName, draft, reviewers, labels, autoMerge, mergeMethod). Answers the job (status "active"); poll get_job.',
      // The API's own create body, so the tool offers every control and the same limits.
      inputSchema: createBodySchema.shape,
    },
    run((body) => api({ method: 'POST', path: `/v2/agent/${project}/job`, body })),
  );
  server.registerTool(
    'get_job',
    {
      title: 'Get agent job',
      description: `A job's status, pull request link and error, with its latest turn: status, the agent's final message (at most ${MCP_LIMITS.maxMessageChars} characters) and the files it changed.`,
      inputSchema: { jobId },
      annotations: { readOnlyHint: true },
    },
    run(async ({ jobId: id }) => {
      const job = await api({ method: 'GET', path: jobPath(id) });
      const { messages } = (await api({ method: 'GET', path: `${jobPath(id)}/messages` })) as { messages: Turn[] };
      const last = messages.at(-1);
      const latestTurn =
        last === undefined
          ? null
          : {
              sequence: last.sequence,
              status: last.status,
              finalMessage: clip(last.finalMessage),
              filesChanged: last.filesChanged.slice(0, 100),
              docsProblems: last.problems?.length ?? 0,
            };
      return { job, latestTurn };
    }),
  );
  server.registerTool(
    'send_message',
    {
      title: 'Send follow-up message',
      description: 'A follow-up instruction to an existing job: it continues on the same branch and updates the same pull request. Answers the job.',
      inputSchema: { jobId, prompt },
    },
    run(({ jobId: id, prompt: body }) => api({ method: 'POST', path: `${jobPath(id)}/message`, body: { prompt: body } })),
  );
  server.registerTool(
    'cancel_job',
    {
      title: 'Cancel agent job',
      description:
        'Stop an active job within seconds: the running turn is aborted and its uncommitted changes discarded; what earlier turns pushed stays. The job becomes failed with error.code cancelled and still accepts send_message. A job that is not active: tool error job_not_active.',
      inputSchema: { jobId },
      annotations: { destructiveHint: true, idempotentHint: false },
    },
    run(({ jobId: id }) => api({ method: 'POST', path: `${jobPath(id)}/cancel` })),
  );
  server.registerTool(
    'list_jobs',
    {
      title: 'List agent jobs',
      description: "The project's jobs, newest first, optionally by status; page with offset while hasMore is true.",
      inputSchema: {
        status: z.enum(JOB_STATUSES as [JobStatus, ...JobStatus[]]).optional(),
        limit: limitField('Jobs', MCP_LIMITS.defaultListJobs, MCP_LIMITS.maxListJobs),
        offset: offsetField,
      },
      annotations: { readOnlyHint: true },
    },
    run(({ status, limit, offset }) =>
      api({ method: 'GET', path: `/v2/agent/${project}/jobs`, query: { status, limit: limit ?? MCP_LIMITS.defaultListJobs, offset } }),
    ),
  );
  server.registerTool(
    'get_visitors',
    {
      title: 'Unique visitors',
      description: 'Site-wide unique visitors (human, ai, total) and per page, most visitors first, in [dateFrom, dateTo) UTC.',
      inputSchema: {
        ...range,
        limit: limitField('Pages', MCP_LIMITS.defaultVisitors, MCP_LIMITS.maxVisitors),
        offset: offsetField,
      },
      annotations: { readOnlyHint: true },
    },
    run(({ dateFrom, dateTo, limit, offset }) =>
      api({ method: 'GET', path: `/v1/analytics/${project}/visitors`, query: { dateFrom, dateTo, limit: limit ?? MCP_LIMITS.defaultVisitors, offset } }),
    ),
  );
  server.registerTool(
    'get_agent_traffic',
    {
      title: 'Traffic by agent',
      description:
        'Hits and unique visitors per class (human, ai, ai-search, ai-training, bot) and per named agent (ChatGPT, ClaudeBot, Googlebot…), most hits first, in [dateFrom, dateTo) UTC.',
      inputSchema: {
        ...range,
        limit: limitField('Agents', MCP_LIMITS.defaultAgents, MCP_LIMITS.maxAgents),
      },
      annotations: { readOnlyHint: true },
    },
    run(async ({ dateFrom, dateTo, limit }) => {
      const traffic = (await api({ method: 'GET', path: `/v1/analytics/${project}/traffic`, query: { dateFrom, dateTo } })) as {
        classes: unknown[];
        agents: unknown[];
      };
      const count = limit ?? MCP_LIMITS.defaultAgents;
      return { classes: traffic.classes, agents: traffic.agents.slice(0, count), moreAgents: traffic.agents.length > count };
    }),
  );
  return server;
}
