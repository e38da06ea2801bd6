import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { loadClientConfig } from '../../config/load-config.js';
import { WEBHOOK_EVENT_TYPES } from '../../webhooks/webhook-events.js';
import type { WebhookEndpoint } from '../../webhooks/webhook-endpoint.js';
import type { WebhookAttempt, WebhookMessage } from '../../webhooks/webhook-deliveries.js';
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
  events?: string[];
  description?: string;
  enable?: boolean;
  disable?: boolean;
}

function parseEvents(value: string): string[] {
  const events = value
    .split(',')
    .map((event) => event.trim())
    .filter((event) => event !== '');
  const unknown = events.filter((event) => !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(event));
  if (unknown.length > 0) throw new InvalidArgumentError(`unknown event ${unknown.join(', ')}; one of ${WEBHOOK_EVENT_TYPES.join(', ')}`);
  return events;
}

function parseHours(value: string): number {
  const hours = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value.trim()) || hours > 720) throw new InvalidArgumentError(`--overlap-hours must be 0 to 720 (got "${value}").`);
  return hours;
}

function client(command: Command, options: Common): { api: ApiClient; base: string } {
  const config = loadClientConfig();
  const projectId = options.project ?? config.projectId;
  if (projectId === undefined || projectId === '') {
    command.error('error: pass --project ID or set DOCWRIGHT_PROJECT (the project the API key belongs to)', { exitCode: USAGE_EXIT_CODE });
  }
  return { api: new ApiClient(config), base: `/v1/projects/${encodeURIComponent(projectId)}/webhooks` };
}

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

function endpointBody(options: EndpointOptions): Record<string, unknown> {
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
    const { api, base } = client(self, options);
    const { body } = await api.request<{ webhooks: WebhookEndpoint[] }>(base);
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
      const { api, base } = client(self, options);
      const { body } = await api.request<{ webhook: WebhookEndpoint; secret: string }>(base, { method: 'POST', body: endpointBody(options) });
      if (options.json) return printJson(body);
      printEndpoint(body.webhook);
      printSecret(body.secret);
    });

  sub(command, 'get', 'Show one endpoint.')
    .argument('<id>', 'endpoint id')
    .action(async (id: string, options: Common, self: Command) => {
      const { api, base } = client(self, options);
      const { body } = await api.request<WebhookEndpoint>(`${base}/${encodeURIComponent(id)}`);
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
      const { api, base } = client(self, options);
      const { body } = await api.request<WebhookEndpoint>(`${base}/${encodeURIComponent(id)}`, { method: 'PATCH', body: endpointBody(options) });
      if (options.json) return printJson(body);
      printEndpoint(body);
    });

  sub(command, 'delete', 'Delete an endpoint, its undelivered messages and its delivery log.')
    .argument('<id>', 'endpoint id')
    .action(async (id: string, options: Common, self: Command) => {
      const { api, base } = client(self, options);
      await api.request(`${base}/${encodeURIComponent(id)}`, { method: 'DELETE' });
      if (options.json) return printJson({ deleted: id });
      process.stdout.write(`Deleted webhook endpoint ${id}.\n`);
    });

  sub(command, 'rotate-secret', 'Issue a new signing secret; the old one keeps signing during the overlap (default 24 h).')
    .argument('<id>', 'endpoint id')
    .option('--overlap-hours <hours>', 'how long the old secret stays valid (0 ends it now)', parseHours)
    .action(async (id: string, options: Common & { overlapHours?: number }, self: Command) => {
      const { api, base } = client(self, options);
      const body = options.overlapHours === undefined ? {} : { overlapSeconds: Math.round(options.overlapHours * 3600) };
      const answer = await api.request<{ webhook: WebhookEndpoint; secret: string }>(`${base}/${encodeURIComponent(id)}/rotate-secret`, {
        method: 'POST',
        body,
      });
      if (options.json) return printJson(answer.body);
      printEndpoint(answer.body.webhook);
      printSecret(answer.body.secret);
    });

  sub(command, 'deliveries', "List an endpoint's messages, newest first.")
    .argument('<id>', 'endpoint id')
    .option('--status <status>', 'pending, succeeded or failed')
    .option('--limit <n>', 'at most this many (1-100, default 20)', (value: string) => parseLimit(value, 100, '--limit'))
    .option('--offset <n>', 'skip this many', (value: string) => parseLimit(value, 100_000, '--offset', 0))
    .action(async (id: string, options: Common & { status?: string; limit?: number; offset?: number }, self: Command) => {
      const { api, base } = client(self, options);
      const { body } = await api.request<{ messages: WebhookMessage[]; hasMore: boolean }>(`${base}/${encodeURIComponent(id)}/deliveries`, {
        query: { status: options.status, limit: options.limit, offset: options.offset },
      });
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
      const { api, base } = client(self, options);
      const { body } = await api.request<WebhookMessage & { payload: unknown; attemptLog: WebhookAttempt[] }>(
        `${base}/${encodeURIComponent(id)}/deliveries/${encodeURIComponent(messageId)}`,
      );
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
      const { api, base } = client(self, options);
      const { body } = await api.request<WebhookMessage>(`${base}/${encodeURIComponent(id)}/deliveries/${encodeURIComponent(messageId)}/redeliver`, {
        method: 'POST',
      });
      if (options.json) return printJson(body);
      process.stdout.write(`Message ${body.id} queued for redelivery.\n`);
    });

  return command;
}
