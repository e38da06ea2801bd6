import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { loadClientConfig } from '../../config/load-config.js';
import { JOB_STATUSES, type JobStatus } from '../../jobs/job.js';
import { ApiClient } from '../api-client.js';
import { JobsApi, type Job, type JobCreateControls } from '../jobs-api.js';
import { printConversation, printJob, printJobList } from '../jobs-format.js';
import { readPrompt } from '../jobs-prompt.js';
import { firstPendingSequence, waitForJob } from '../jobs-wait.js';
import { printJson } from '../output.js';
import { parseLimit } from '../parse-options.js';

const MAX_LIST_LIMIT = 100;
const USAGE_EXIT_CODE = 2;

const ENVIRONMENT_HELP = `
Environment:
  DOCWRIGHT_URL      the server (default http://127.0.0.1:3000)
  DOCWRIGHT_API_KEY  an admin key of the project (docwright keys create --project ID)
  DOCWRIGHT_PROJECT  the default for --project`;

const EXIT_CODES_HELP = `
Exit codes: 0 completed (or not waiting), 1 failed, archived or an API error,
2 usage error, 3 still active when --timeout ran out (the job keeps running).`;

const WAIT_HELP = `
With --wait, progress goes to stderr while the agent works (turns, each tool call,
retries, the pull request), then stdout gets the outcome: the pull request link,
"no changes", or the failure. The event stream resumes with Last-Event-ID when it
drops; if it cannot be opened the job is polled instead. Ctrl-C stops waiting, not
the job: resume with docwright jobs wait ID.`;

function parseSeconds(value: string): number {
  const seconds = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value.trim()) || !(seconds > 0)) throw new InvalidArgumentError(`--timeout must be a positive number of seconds (got "${value}").`);
  return seconds;
}

interface ProjectOption {
  project?: string;
}

interface ControlOptions {
  ref?: string;
  branchName?: string;
  draft?: boolean;
  reviewer: string[];
  label: string[];
  autoMerge?: boolean;
  mergeMethod?: 'merge' | 'squash' | 'rebase';
}

interface PromptOptions extends ProjectOption {
  prompt?: string;
  promptFile?: string;
  wait?: boolean;
  timeout?: number;
  idempotencyKey?: string;
  json?: boolean;
}

/** Usage errors end with exit code 2, like commander's own after the override below. */
function usage(command: Command, message: string): never {
  command.error(`error: ${message}`, { exitCode: USAGE_EXIT_CODE, code: 'docwright.usage' });
}

function jobsApi(command: Command, options: ProjectOption): JobsApi {
  const config = loadClientConfig();
  const projectId = options.project ?? config.projectId;
  if (projectId === undefined || projectId === '') usage(command, 'pass --project ID or set DOCWRIGHT_PROJECT (the project the API key belongs to)');
  return new JobsApi(new ApiClient(config), projectId);
}

function projectOption(): Option {
  return new Option('--project <id>', 'project id (default: $DOCWRIGHT_PROJECT)');
}

function addPromptOptions(command: Command): Command {
  return command
    .addOption(projectOption())
    .option('--prompt <text>', 'the instruction for the agent')
    .option('--prompt-file <file>', 'read the instruction from a file, or from stdin with -')
    .option('--wait', 'follow the job until it finishes, then print the pull request link')
    .option('--timeout <seconds>', 'with --wait: stop waiting after this many seconds (exit 3)', parseSeconds)
    .option('--idempotency-key <key>', 'a retry with the same key gets the first answer instead of a second run')
    .option('--json', "print the API's job object as JSON (with --wait: the finished job)");
}

const collect = (value: string, previous: string[]): string[] => [...previous, value];

/** The branch and review controls of create; the server validates them against the project's forge. */
function addControlOptions(command: Command): Command {
  return command
    .option('--ref <branch>', "start from this branch and open the pull request against it (default: the project's ref)")
    .option('--branch-name <name>', 'push to docwright/<name> instead of docwright/<job id>')
    .option('--draft', 'open the pull request as a draft (GitHub, GitLab)')
    .option('--reviewer <name>', 'request a review (repeatable): a GitHub login or org/team, a GitLab username', collect, [])
    .option('--label <name>', 'add a label to the pull request (repeatable; GitHub, GitLab)', collect, [])
    .option('--auto-merge', "merge the pull request once the forge's checks and approvals pass (GitHub, GitLab)")
    .addOption(new Option('--merge-method <method>', 'with --auto-merge: how to merge').choices(['merge', 'squash', 'rebase']));
}

function controlsOf(options: ControlOptions): JobCreateControls {
  return {
    ...(options.ref === undefined ? {} : { ref: options.ref }),
    ...(options.branchName === undefined ? {} : { branchName: options.branchName }),
    ...(options.draft === true ? { draft: true } : {}),
    ...(options.reviewer.length > 0 ? { reviewers: options.reviewer } : {}),
    ...(options.label.length > 0 ? { labels: options.label } : {}),
    ...(options.autoMerge === true ? { autoMerge: true } : {}),
    ...(options.mergeMethod === undefined ? {} : { mergeMethod: options.mergeMethod }),
  };
}

async function promptOf(command: Command, options: PromptOptions): Promise<string> {
  if (options.timeout !== undefined && !options.wait) usage(command, '--timeout only applies with --wait');
  const reading = await readPrompt(options);
  if (!reading.ok) usage(command, reading.usage);
  return reading.prompt;
}

async function afterPromptSent(api: JobsApi, job: Job, options: PromptOptions, headline: string, fromSequence: () => Promise<number>): Promise<void> {
  if (!options.wait) {
    if (options.json) {
      printJson(job);
      return;
    }
    printJob(job, headline);
    process.stdout.write(`\nFollow it with: docwright jobs wait ${job.id}\n`);
    return;
  }
  process.stderr.write(`${headline}; waiting for it to finish (Ctrl-C stops waiting, not the job).\n`);
  process.exitCode = await waitForJob({ api, job, fromSequence: await fromSequence(), json: options.json === true, timeoutSeconds: options.timeout });
}

/** A subcommand that changes one job by id (archive, cancel) and prints it, or its JSON. */
function addJobChange(command: Command, name: string, description: string, change: (api: JobsApi, id: string) => Promise<Job>, done: string): void {
  command
    .command(name)
    .description(description)
    .argument('<id>', 'job id')
    .addOption(projectOption())
    .option('--json', "print the API's job object as JSON")
    .action(async (id: string, options: ProjectOption & { json?: boolean }, self: Command) => {
      const job = await change(jobsApi(self, options), id);
      if (options.json) return printJson(job);
      printJob(job, `${done} job ${job.id}.`);
    });
}

export function jobsCommand(): Command {
  const command = new Command('jobs')
    .description('Run AI agent jobs that edit the docs repository and open pull requests, on a running server (DOCWRIGHT_URL, DOCWRIGHT_API_KEY).')
    .showHelpAfterError('(run with --help for usage)')
    // Subcommands made with .command() inherit this: usage errors exit 2, help exits 0.
    .exitOverride((error) => {
      throw error.exitCode === 0 ? error : new CommanderError(USAGE_EXIT_CODE, error.code, error.message);
    })
    .addHelpText('after', `${ENVIRONMENT_HELP}\n${EXIT_CODES_HELP}`);

  addControlOptions(
    addPromptOptions(command.command('create').description('Start an agent job with a prompt. It runs in the background; --wait follows it to the end.')),
  )
    .addHelpText(
      'after',
      `${WAIT_HELP}\n${EXIT_CODES_HELP}\n
Examples:
  docwright jobs create --project prj_123 --prompt "Add a troubleshooting page" --wait
  git log -1 --format=%B | docwright jobs create --prompt-file - --json
  docwright jobs create --prompt-file brief.md --idempotency-key release-42
  docwright jobs create --prompt "Fix typos" --label docs --reviewer alice --auto-merge --merge-method squash`,
    )
    .action(async (options: PromptOptions & ControlOptions, self: Command) => {
      const api = jobsApi(self, options);
      const prompt = await promptOf(self, options);
      const job = await api.create(prompt, options.idempotencyKey, controlsOf(options));
      await afterPromptSent(api, job, options, `Created job ${job.id}`, async () => 1);
    });

  addPromptOptions(
    command
      .command('message')
      .description('Send a follow-up instruction to a job. It continues on the same branch and updates the same pull request.')
      .argument('<id>', 'job id'),
  )
    .addHelpText(
      'after',
      `
A follow-up to an active job runs after its current turn; to a completed or failed
job it makes the job active again. An archived job refuses follow-ups (409).
${WAIT_HELP}\n${EXIT_CODES_HELP}\n
Examples:
  docwright jobs message JOB_ID --prompt "Also mention the --verbose flag" --wait`,
    )
    .action(async (id: string, options: PromptOptions, self: Command) => {
      const api = jobsApi(self, options);
      const prompt = await promptOf(self, options);
      const job = await api.message(id, prompt, options.idempotencyKey);
      await afterPromptSent(api, job, options, `Sent a follow-up to job ${job.id}`, () => firstPendingSequence(api, job.id));
    });

  command
    .command('get')
    .description('Show a job: status, pull request link, model, source and error.')
    .argument('<id>', 'job id')
    .addOption(projectOption())
    .option('--json', "print the API's job object as JSON")
    .addHelpText('after', '\nExample:\n  docwright jobs get JOB_ID --json | jq -r .prLink')
    .action(async (id: string, options: ProjectOption & { json?: boolean }, self: Command) => {
      const job = await jobsApi(self, options).get(id);
      if (options.json) return printJson(job);
      printJob(job);
    });

  command
    .command('list')
    .description("List the project's jobs, newest first.")
    .addOption(projectOption())
    .addOption(new Option('--status <status>', 'only jobs in this state').choices([...JOB_STATUSES]))
    .option('--limit <n>', `at most this many, 1-${MAX_LIST_LIMIT}`, (value) => parseLimit(value, MAX_LIST_LIMIT, '--limit'), 20)
    .option('--offset <n>', 'skip this many', (value) => parseLimit(value, 1_000_000, '--offset', 0), 0)
    .option('--json', 'print the API\'s {"jobs": [...], "hasMore": …} as JSON')
    .addHelpText('after', '\nExamples:\n  docwright jobs list --status failed\n  docwright jobs list --limit 100 --offset 100 --json')
    .action(async (options: ProjectOption & { status?: JobStatus; limit: number; offset: number; json?: boolean }, self: Command) => {
      const list = await jobsApi(self, options).list({ status: options.status, limit: options.limit, offset: options.offset });
      if (options.json) return printJson(list);
      printJobList(list, options.offset);
    });

  addJobChange(
    command,
    'archive',
    'Archive a job: a running turn is stopped and queued follow-ups are dropped. Final; the pull request stays.',
    (api, id) => api.archive(id),
    'Archived',
  );
  addJobChange(
    command,
    'cancel',
    'Cancel an active job: the running turn stops within seconds, its uncommitted changes are discarded, queued follow-ups are dropped. The job becomes failed (error cancelled) and accepts follow-ups; what earlier turns pushed stays.',
    (api, id) => api.cancel(id),
    'Cancelled',
  );

  command
    .command('wait')
    .description('Wait until a job is no longer active, showing its progress; print the pull request link or the failure.')
    .argument('<id>', 'job id')
    .addOption(projectOption())
    .option('--timeout <seconds>', 'stop waiting after this many seconds (exit 3; the job keeps running)', parseSeconds)
    .option('--json', "print the API's job object as JSON once the job has finished")
    .addHelpText('after', `${EXIT_CODES_HELP}\n\nExample:\n  docwright jobs wait JOB_ID --timeout 600 && echo "ready for review"`)
    .action(async (id: string, options: ProjectOption & { timeout?: number; json?: boolean }, self: Command) => {
      const api = jobsApi(self, options);
      const job = await api.get(id);
      const fromSequence = job.status === 'active' ? await firstPendingSequence(api, id) : 0;
      process.exitCode = await waitForJob({ api, job, fromSequence, json: options.json === true, timeoutSeconds: options.timeout });
    });

  command
    .command('messages')
    .description("Show a job's conversation: every prompt, the agent's tool steps and answer, files changed, commit and problems left.")
    .argument('<id>', 'job id')
    .addOption(projectOption())
    .option('--json', 'print the API\'s {"messages": [...]} as JSON')
    .action(async (id: string, options: ProjectOption & { json?: boolean }, self: Command) => {
      const conversation = await jobsApi(self, options).conversation(id);
      if (options.json) return printJson(conversation);
      printConversation(conversation.messages);
    });

  for (const subcommand of command.commands) subcommand.addHelpText('after', ENVIRONMENT_HELP);
  return command;
}
