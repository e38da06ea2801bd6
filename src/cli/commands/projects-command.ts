import { readFileSync } from 'node:fs';
import { Command, InvalidArgumentError, Option } from 'commander';
import { credentialsFromOptions, type CredentialOptions } from '../../projects/forge-credentials-input.js';
import { FORGE_KINDS, type ForgeKind, type Project } from '../../projects/project.js';
import { normaliseProjectInput, writePolicySchema } from '../../projects/project-input.js';
import { validationFailed } from '../../core/errors.js';
import { withLocalServices } from '../local-services.js';
import { printFields, printJson, printTable } from '../output.js';
import { parseLimit } from '../parse-options.js';

const readStandardInput = (): string => readFileSync(0, 'utf8');
const collect = (value: string, previous: string[]): string[] => [...previous, value];

function printProject(project: Project): void {
  process.stdout.write(`${project.name} (${project.id})\n`);
  printFields([
    ['id', project.id],
    ['repository', project.repository],
    ['ref', project.ref],
    ['forge', project.forge],
    ['forge credentials', project.hasForgeCredentials ? 'stored (encrypted)' : 'none'],
    ['settings', JSON.stringify(project.settings)],
    ['created', project.createdAt],
  ]);
}

export function projectsCommand(): Command {
  const command = new Command('projects').description('Create and inspect documentation projects (works on the local store directly).');

  command
    .command('create')
    .description('Create a project. REPO is a local git repository path (local forge) or https://github.com/OWNER/NAME.')
    .requiredOption('--name <name>', 'display name')
    .requiredOption('--repository <repo>', 'local git repository path, or https://github.com/OWNER/NAME, or a GitLab project URL')
    .option('--ref <ref>', 'base branch that pull requests target', 'main')
    .addOption(new Option('--forge <forge>', 'where pull requests are opened; inferred from the repository when omitted').choices([...FORGE_KINDS]))
    .option('--model <model>', 'default model for this project, provider:model')
    .option('--token-file <file>', 'GitHub/GitLab token, read from this file (stored encrypted)')
    .option('--token-stdin', 'read the GitHub/GitLab token from standard input (stored encrypted)')
    .option('--json', 'print the project as JSON')
    .action(async (options: { name: string; repository: string; ref: string; forge?: ForgeKind; model?: string; json?: boolean } & CredentialOptions) => {
      const input = normaliseProjectInput({
        name: options.name,
        repository: options.repository,
        ref: options.ref,
        forge: options.forge,
        settings: options.model ? { model: options.model } : {},
      });
      const credentials = credentialsFromOptions(options, readStandardInput);
      const project = await withLocalServices((services) => services.projects.create(input, credentials));
      if (options.json) return printJson(project);
      process.stdout.write('Created project ');
      printProject(project);
      process.stdout.write(`\nNext: docwright keys create --project ${project.id}\n`);
    });

  command
    .command('set-credentials')
    .description("Store (encrypted) or clear the credentials Docwright uses for a project's forge: a token, or a GitHub App installation.")
    .argument('<id>', 'project id')
    .option('--token-file <file>', 'read a token from this file')
    .option('--token-stdin', 'read a token from standard input')
    .option('--github-app-id <id>', 'GitHub App id')
    .option('--github-app-key-file <file>', "the GitHub App's private key (PEM)")
    .option('--github-installation-id <id>', 'installation id of the App on the repository owner')
    .option('--clear', 'remove the stored credentials')
    .option('--json', 'print the project as JSON')
    .action(async (id: string, options: CredentialOptions & { clear?: boolean; json?: boolean }) => {
      const credentials = options.clear ? null : credentialsFromOptions(options, readStandardInput);
      if (!options.clear && credentials === null) throw new InvalidArgumentError('Give --token-file, --token-stdin, the --github-app-* options, or --clear.');
      const project = await withLocalServices((services) => services.projects.update(id, { credentials }));
      if (options.json) return printJson(project);
      process.stdout.write(options.clear ? `Cleared the credentials of ${project.name}.\n` : `Stored credentials for ${project.name} (encrypted).\n`);
    });

  command
    .command('set-write-policy')
    .description(
      "Change what the agent may write in this project's repository. The built-in policy allows documentation content (pages, images and static assets, docs.json/mint.json and the files they reference) and always refuses CI, build, package and dot files (docs/agent-jobs.md lists them); --allow adds globs, --deny refuses more, and the built-in refusals always win.",
    )
    .argument('<id>', 'project id')
    .option('--allow <glob>', 'also allow paths matching this glob (repeatable; replaces the earlier --allow list), e.g. "snippets/**/*.jsx"', collect, [])
    .option('--deny <glob>', 'refuse paths matching this glob (repeatable; replaces the earlier --deny list); wins over every allow', collect, [])
    .option('--reset', "drop the project's additions and use the built-in policy alone")
    .option('--json', 'print the project as JSON')
    .action(async (id: string, options: { allow: string[]; deny: string[]; reset?: boolean; json?: boolean }) => {
      if (!options.reset && options.allow.length === 0 && options.deny.length === 0) throw new InvalidArgumentError('Give --allow, --deny or --reset.');
      if (options.reset && (options.allow.length > 0 || options.deny.length > 0))
        throw new InvalidArgumentError('--reset cannot be combined with --allow or --deny.');
      const parsed = writePolicySchema.safeParse({
        ...(options.allow.length > 0 ? { allow: options.allow } : {}),
        ...(options.deny.length > 0 ? { deny: options.deny } : {}),
      });
      if (!parsed.success) {
        throw validationFailed(
          'The write policy is not valid.',
          parsed.error.issues.map((issue) => ({ path: ['writePolicy', ...issue.path].join('.'), message: issue.message })),
        );
      }
      const project = await withLocalServices(async (services) => {
        const current = await services.projects.get(id);
        const { writePolicy: previous, ...rest } = current.settings;
        // A list given replaces the earlier one; a list not given is kept.
        const allow = parsed.data.allow ?? previous?.allow;
        const deny = parsed.data.deny ?? previous?.deny;
        const writePolicy = { ...(allow ? { allow } : {}), ...(deny ? { deny } : {}) };
        return services.projects.update(id, { settings: options.reset ? rest : { ...rest, writePolicy } });
      });
      if (options.json) return printJson(project);
      const policy = project.settings.writePolicy;
      process.stdout.write(
        policy === undefined
          ? `${project.name} uses the built-in write policy.\n`
          : `Write policy of ${project.name}: allow ${JSON.stringify(policy.allow ?? [])}, deny ${JSON.stringify(policy.deny ?? [])} (on top of the built-in policy).\n`,
      );
    });

  command
    .command('set-budget')
    .description(
      "Set the project's monthly token budget: input + output tokens its agent jobs may use per UTC month. A turn that finds none left fails with budget_exceeded before the model is called; a running turn is capped at what is left.",
    )
    .argument('<id>', 'project id')
    .option('--monthly-tokens <n>', 'tokens per UTC month', (value) => parseLimit(value, 1e15, '--monthly-tokens', 1))
    .option('--reset', 'drop the project budget and use DOCWRIGHT_MONTHLY_TOKEN_BUDGET (none when unset)')
    .option('--json', 'print the project as JSON')
    .action(async (id: string, options: { monthlyTokens?: number; reset?: boolean; json?: boolean }) => {
      if ((options.monthlyTokens === undefined) === (options.reset !== true)) throw new InvalidArgumentError('Give either --monthly-tokens N or --reset.');
      const project = await withLocalServices(async (services) => {
        const { monthlyTokenBudget: _previous, ...rest } = (await services.projects.get(id)).settings;
        return services.projects.update(id, { settings: options.reset ? rest : { ...rest, monthlyTokenBudget: options.monthlyTokens } });
      });
      if (options.json) return printJson(project);
      const budget = project.settings.monthlyTokenBudget;
      process.stdout.write(
        budget === undefined
          ? `${project.name} has no budget of its own (DOCWRIGHT_MONTHLY_TOKEN_BUDGET applies).\n`
          : `${project.name} may use ${budget.toLocaleString('en-US')} tokens per month.\n`,
      );
    });

  command
    .command('list')
    .description('List projects, oldest first.')
    .option('--limit <n>', 'at most this many (1-1000)', '100')
    .option('--offset <n>', 'skip this many', '0')
    .option('--json', 'print {projects: [...]} as JSON')
    .action(async (options: { limit: string; offset: string; json?: boolean }) => {
      const projects = await withLocalServices((services) =>
        services.projects.list({
          limit: parseLimit(options.limit, 1000, '--limit'),
          offset: parseLimit(options.offset, Number.MAX_SAFE_INTEGER, '--offset', 0),
        }),
      );
      if (options.json) return printJson({ projects });
      if (projects.length === 0)
        return void process.stdout.write('No projects yet. Create one with: docwright projects create --name NAME --repository PATH\n');
      printTable(
        ['ID', 'NAME', 'FORGE', 'REF', 'REPOSITORY'],
        projects.map((project) => [project.id, project.name, project.forge, project.ref, project.repository]),
      );
    });

  command
    .command('show')
    .description('Show one project.')
    .argument('<id>', 'project id')
    .option('--json', 'print the project as JSON')
    .action(async (id: string, options: { json?: boolean }) => {
      const project = await withLocalServices((services) => services.projects.get(id));
      if (options.json) return printJson(project);
      printProject(project);
    });

  return command;
}
