import { Command, InvalidArgumentError, Option } from 'commander';
import { KEY_SCOPES, type KeyScope } from '../../keys/api-key-format.js';
import { withLocalServices } from '../local-services.js';
import { printFields, printJson, printTable } from '../output.js';
import { parseDuration } from '../parse-options.js';

export function keysCommand(): Command {
  const command = new Command('keys').description('Issue, list and revoke API keys (works on the local store directly).');

  command
    .command('create')
    .description('Create an API key for a project. The key is shown once; only its hash is stored.')
    .requiredOption('--project <id>', 'project id')
    .addOption(new Option('--scope <scope>', 'admin: the whole API; ingest: analytics ingestion only').choices([...KEY_SCOPES]).default('admin'))
    .option('--name <name>', 'a label to recognise the key by')
    .option('--expires-in <duration>', 'expire after 90m, 12h, 30d, 2w …')
    .option('--json', 'print {"id", "key", "scope", "projectId"} as JSON')
    .action(async (options: { project: string; scope: KeyScope; name?: string; expiresIn?: string; json?: boolean }) => {
      const expiresIn = options.expiresIn === undefined ? undefined : parseDuration(options.expiresIn, '--expires-in');
      if (options.name !== undefined && (options.name.length < 1 || options.name.length > 100)) {
        throw new InvalidArgumentError('--name must be 1 to 100 characters.');
      }
      const created = await withLocalServices((services) =>
        services.keys.create({
          projectId: options.project,
          scope: options.scope,
          name: options.name,
          expiresAt: expiresIn === undefined ? null : services.clock.now() + expiresIn,
        }),
      );
      if (options.json) return printJson({ id: created.id, key: created.key, scope: created.scope, projectId: created.projectId });
      process.stdout.write(`Created ${created.scope} key ${created.id} for project ${created.projectId}.\n\n  ${created.key}\n\n`);
      process.stdout.write('Store it now: it is not shown again. Use it as "Authorization: Bearer <key>".\n');
    });

  command
    .command('list')
    .description("List a project's keys (hints only, never the keys).")
    .requiredOption('--project <id>', 'project id')
    .option('--json', 'print {keys: [...]} as JSON')
    .action(async (options: { project: string; json?: boolean }) => {
      const keys = await withLocalServices(async (services) => {
        await services.projects.get(options.project);
        return services.keys.list(options.project);
      });
      if (options.json) return printJson({ keys });
      if (keys.length === 0) return void process.stdout.write(`No keys for project ${options.project}.\n`);
      printTable(
        ['ID', 'SCOPE', 'HINT', 'NAME', 'CREATED', 'EXPIRES', 'LAST USED', 'REVOKED'],
        keys.map((key) => [key.id, key.scope, key.hint, key.name, key.createdAt, key.expiresAt, key.lastUsedAt, key.revokedAt]),
      );
    });

  command
    .command('revoke')
    .description('Revoke a key. Requests with it fail with 401 from then on.')
    .argument('<id>', 'key id')
    .option('--json', 'print the revoked key as JSON')
    .action(async (id: string, options: { json?: boolean }) => {
      const key = await withLocalServices((services) => services.keys.revoke(id));
      if (options.json) return printJson(key);
      process.stdout.write(`Revoked key ${key.id} (${key.hint}).\n`);
      printFields([['revoked at', key.revokedAt]]);
    });

  return command;
}
