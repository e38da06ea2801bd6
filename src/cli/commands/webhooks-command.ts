import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { loadClientConfig } from '../../config/load-config.js';
import { WEBHOOK_EVENT_TYPES } from '../../webhooks/webhook-events.js';
import type { WebhookEndpoint } from '../../webhooks/webhook-endpoint.js';
import type { WebhookEventType } from '../../webhooks/webhook-events.js';
import type { WebhookMessage } from '../../webhooks/webhook-deliveries.js';
import { ok, type DocwrightClient } from '../../../packages/sdk/src/index.js';
import { ApiClient } from '../api-client.js';
import { printFields, printJson, printTable } from '../output.js';
import { parseLimit } from '../parse-options.js';

const USAGE_EXIT_CODE = 2;

const HELP = `
Events: ${WEBHOOK_EVENT_TYPES.join(', ')}.
Deliveries are signed the Standard Webhooks way (webhook-id, webhook-timestamp,
webhook-signature); see docs/webhooks.md for verification and the retry schedule.

Environment:
  DOCWRIGHT_URL      the server (default http://127.0.0.1:3000)
  DOCWRIGHT_API_KEY  an admin key of the project (docwright keys create --project ID)
  DOCWRIGHT_PROJECT  the default for --project`;

interface Common {
  project?: string;
  json?: boolean;
}

interface EndpointOptions extends Common {
  url?: string;
  events?: WebhookEventType[];
  description?: string;
  enable?: boolean;
  disable?: boolean;
}

function parseEvents(value: string): WebhookEventType[] {
  const events = value
    .split(',')
    .map((event) => event.trim())
    .filter((event) => event !== '');
  const unknown = events.filter((event) => !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(event));
  if (unknown.length > 0) throw new InvalidArgumentError(`unknown event ${unknown.join(', ')}; one of ${WEBHOOK_EVENT_TYPES.join(', ')}`);
  return events as WebhookEventType[];
}

function parseHours(value: string): number {
  const hours = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value.trim()) || hours > 720) throw new InvalidArgumentError(`--overlap-hours must be 0 to 720 (got "${value}").`);
  return hours;
}

/** One typed SDK call for the project of --project (or DOCWRIGHT_PROJECT); its errors become the CLI's. */
type Send = <T>(operation: (sdk: DocwrightClient, projectId: string) => Promise<{ data?: T; response: Response }>) => Promise<T>;

function client(command: Command, options: Common): Send {
  const config = loadClientConfig();
  const projectId = options.project ?? config.projectId;
  if (projectId === undefined || projectId === '') {
    command.error('error: pass --project ID or set DOCWRIGHT_PROJECT (the project the API key belongs to)', { exitCode: USAGE_EXIT_CODE });
  }
  const api = new ApiClient(config);
  return (operation) => api.call(() => ok(operation(api.sdk(), projectId)));
}

const endpointPath = (projectId: string, webhookId: string) => ({ path: { projectId, webhookId } });
const messagePath = (projectId: string, webhookId: string, messageId: string) => ({ path: { projectId, webhookId, messageId } });

function printEndpoint(endpoint: WebhookEndpoint): void {
  printFields([
    ['id', endpoint.id],
    ['url', endpoint.url],
    ['events', endpoint.events.length === 0 ? 'all' : endpoint.events.join(', ')],
    ['enabled', endpoint.enabled ? 'yes' : 'no'],
    ['description', endpoint.description || null],
    ['previous secret valid until', endpoint.previousSecretExpiresAt],
    ['created', endpoint.createdAt],
  ]);
}

function printSecret(secret: string): void {
  process.stdout.write(`\nSigning secret (shown this once; store it now):\n  ${secret}\n`);
}

/** Common options of every subcommand: the project and --json. */
function sub(parent: Command, name: string, description: string): Command {
  return parent
    .command(name)
    .description(description)
    .addOption(new Option('--project <id>', 'project id (default: $DOCWRIGHT_PROJECT)'))
    .option('--json', "print the API's answer as JSON");
}

function endpointBody(options: EndpointOptions): { url?: string; events?: WebhookEventType[]; description?: string; enabled?: boolean } {
  return {
    ...(options.url === undefined ? {} : { url: options.url }),
    ...(options.events === undefined ? {} : { events: options.events }),
    ...(options.description === undefined ? {} : { description: options.description }),
    ...(options.enable ? { enabled: true } : options.disable ? { enabled: false } : {}),
  };
}

export function webhooksCommand(): Command {
  const command = new Command('webhooks')
    .description("Manage a project's webhook endpoints and their deliveries, on a running server (DOCWRIGHT_URL, DOCWRIGHT_API_KEY).")
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride((error) => {
      throw error.exitCode === 0 ? error : new CommanderError(USAGE_EXIT_CODE, error.code, error.message);
    })
    .addHelpText('after', HELP);

  sub(command, 'list', "List the project's webhook endpoints.").action(async (options: Common, self: Command) => {
    const body = await client(self, options)((sdk, projectId) => sdk.GET('/v1/projects/{projectId}/webhooks', { params: { path: { projectId } } }));
    if (options.json) return printJson(body);
    if (body.webhooks.length === 0) return void process.stdout.write('No webhook endpoints.\n');
    printTable(
      ['ID', 'URL', 'EVENTS', 'ENABLED'],
      body.webhooks.map((endpoint) => [
        endpoint.id,
        endpoint.url,
        endpoint.events.length === 0 ? 'all' : endpoint.events.join(','),
        endpoint.enabled ? 'yes' : 'no',
      ]),
    );
  });

  sub(command, 'create', 'Add an endpoint; prints its signing secret once.')
    .requiredOption('--url <url>', 'where deliveries go: https:// (no private, loopback or link-local address)')
    .option('--events <list>', 'comma-separated events to send (default: all)', parseEvents)
    .option('--description <text>', 'a note for people')
    .option('--disable', 'create it disabled')
    .addHelpText('after', '\nExample:\n  docwright webhooks create --url https://ci.example.com/hooks --events job.completed,job.failed')
    .action(async (options: EndpointOptions, self: Command) => {
      const { url = '', ...rest } = endpointBody(options); // commander requires --url
      const body = await client(
        self,
        options,
      )((sdk, projectId) => sdk.POST('/v1/projects/{projectId}/webhooks', { params: { path: { projectId } }, body: { url, ...rest } }));
      if (options.json) return printJson(body);
      printEndpoint(body.webhook);
      printSecret(body.secret);
    });

  sub(command, 'get', 'Show one endpoint.')
    .argument('<id>', 'endpoint id')
    .action(async (id: string, options: Common, self: Command) => {
      const body = await client(
        self,
        options,
      )((sdk, projectId) => sdk.GET('/v1/projects/{projectId}/webhooks/{webhookId}', { params: endpointPath(projectId, id) }));
      if (options.json) return printJson(body);
      printEndpoint(body);
    });

  sub(command, 'update', "Change an endpoint's URL, events, description or enabled flag.")
    .argument('<id>', 'endpoint id')
    .option('--url <url>', 'new URL')
    .option('--events <list>', 'comma-separated events; "" for all', (value: string) => (value.trim() === '' ? [] : parseEvents(value)))
    .option('--description <text>', 'new description')
    .option('--enable', 'send deliveries again')
    .option('--disable', 'stop recording events (undelivered ones fail with endpoint_disabled)')
    .action(async (id: string, options: EndpointOptions, self: Command) => {
      if (options.enable && options.disable) self.error('error: --enable and --disable exclude each other', { exitCode: USAGE_EXIT_CODE });
      const body = await client(
        self,
        options,
      )((sdk, projectId) => sdk.PATCH('/v1/projects/{projectId}/webhooks/{webhookId}', { params: endpointPath(projectId, id), body: endpointBody(options) }));
      if (options.json) return printJson(body);
      printEndpoint(body);
    });

  sub(command, 'delete', 'Delete an endpoint, its undelivered messages and its delivery log.')
    .argument('<id>', 'endpoint id')
    .action(async (id: string, options: Common, self: Command) => {
      await client(self, options)((sdk, projectId) => sdk.DELETE('/v1/projects/{projectId}/webhooks/{webhookId}', { params: endpointPath(projectId, id) }));
      if (options.json) return printJson({ deleted: id });
      process.stdout.write(`Deleted webhook endpoint ${id}.\n`);
    });

  sub(command, 'rotate-secret', 'Issue a new signing secret; the old one keeps signing during the overlap (default 24 h).')
    .argument('<id>', 'endpoint id')
    .option('--overlap-hours <hours>', 'how long the old secret stays valid (0 ends it now)', parseHours)
    .action(async (id: string, options: Common & { overlapHours?: number }, self: Command) => {
      const body = options.overlapHours === undefined ? {} : { overlapSeconds: Math.round(options.overlapHours * 3600) };
      const answer = await client(
        self,
        options,
      )((sdk, projectId) => sdk.POST('/v1/projects/{projectId}/webhooks/{webhookId}/rotate-secret', { params: endpointPath(projectId, id), body }));
      if (options.json) return printJson(answer);
      printEndpoint(answer.webhook);
      printSecret(answer.secret);
    });

  sub(command, 'deliveries', "List an endpoint's messages, newest first.")
    .argument('<id>', 'endpoint id')
    .option('--status <status>', 'pending, succeeded or failed')
    .option('--limit <n>', 'at most this many (1-100, default 20)', (value: string) => parseLimit(value, 100, '--limit'))
    .option('--offset <n>', 'skip this many', (value: string) => parseLimit(value, 100_000, '--offset', 0))
    .action(async (id: string, options: Common & { status?: string; limit?: number; offset?: number }, self: Command) => {
      // --status goes to the server unchecked, as before: its 400 names the values it takes.
      const query = { status: options.status as WebhookMessage['status'] | undefined, limit: options.limit, offset: options.offset };
      const body = await client(
        self,
        options,
      )((sdk, projectId) => sdk.GET('/v1/projects/{projectId}/webhooks/{webhookId}/deliveries', { params: { ...endpointPath(projectId, id), query } }));
      if (options.json) return printJson(body);
      printTable(
        ['MESSAGE (webhook-id)', 'EVENT', 'STATUS', 'ATTEMPTS', 'CREATED', 'LAST ERROR'],
        body.messages.map((message) => [message.id, message.eventType, message.status, message.attempts, message.createdAt, message.lastError]),
      );
      if (body.hasMore) process.stdout.write('(more: use --offset)\n');
    });

  sub(command, 'delivery', 'Show one message: its payload and every attempt.')
    .argument('<id>', 'endpoint id')
    .argument('<messageId>', 'message id (the webhook-id header)')
    .action(async (id: string, messageId: string, options: Common, self: Command) => {
      const body = await client(
        self,
        options,
      )((sdk, projectId) => sdk.GET('/v1/projects/{projectId}/webhooks/{webhookId}/deliveries/{messageId}', { params: messagePath(projectId, id, messageId) }));
      if (options.json) return printJson(body);
      printFields([
        ['message', body.id],
        ['event', body.eventType],
        ['status', body.status],
        ['next attempt', body.nextAttemptAt],
      ]);
      printTable(
        ['#', 'TRIGGER', 'STARTED', 'MS', 'OUTCOME', 'HTTP', 'ERROR'],
        body.attemptLog.map((attempt) => [
          attempt.attempt,
          attempt.trigger,
          attempt.startedAt,
          attempt.durationMs,
          attempt.outcome,
          attempt.responseStatus,
          attempt.errorCode,
        ]),
      );
    });

  sub(command, 'redeliver', 'Send a message again, with the same webhook-id.')
    .argument('<id>', 'endpoint id')
    .argument('<messageId>', 'message id (the webhook-id header)')
    .action(async (id: string, messageId: string, options: Common, self: Command) => {
      const body = await client(
        self,
        options,
      )((sdk, projectId) =>
        sdk.POST('/v1/projects/{projectId}/webhooks/{webhookId}/deliveries/{messageId}/redeliver', { params: messagePath(projectId, id, messageId) }),
      );
      if (options.json) return printJson(body);
      process.stdout.write(`Message ${body.id} queued for redelivery.\n`);
    });

  return command;
}
