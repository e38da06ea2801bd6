import { Command, Option } from 'commander';
import { FORGE_KINDS, type ForgeKind, type Project } from '../../projects/project.js';
import { normaliseProjectInput } from '../../projects/project-input.js';
import { withLocalServices } from '../local-services.js';
import { printFields, printJson, printTable } from '../output.js';
import { parseLimit } from '../parse-options.js';

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
    .option('--json', 'print the project as JSON')
    .action(async (options: { name: string; repository: string; ref: string; forge?: ForgeKind; model?: string; json?: boolean }) => {
      const input = normaliseProjectInput({
        name: options.name,
        repository: options.repository,
        ref: options.ref,
        forge: options.forge,
        settings: options.model ? { model: options.model } : {},
      });
      const project = await withLocalServices((services) => services.projects.create(input));
      if (options.json) return printJson(project);
      process.stdout.write('Created project ');
      printProject(project);
      process.stdout.write(`\nNext: docwright keys create --project ${project.id}\n`);
    });

  command
    .command('list')
    .description('List projects, oldest first.')
    .option('--limit <n>', 'at most this many (1-1000)', '100')
    .option('--offset <n>', 'skip this many', '0')
    .option('--json', 'print {projects: [...]} as JSON')
    .action(async (options: { limit: string; offset: string; json?: boolean }) => {
      const projects = await withLocalServices((services) =>
        services.projects.list({ limit: parseLimit(options.limit, 1000, '--limit'), offset: parseLimit(options.offset, Number.MAX_SAFE_INTEGER, '--offset', 0) }),
      );
      if (options.json) return printJson({ projects });
      if (projects.length === 0) return void process.stdout.write('No projects yet. Create one with: docwright projects create --name NAME --repository PATH\n');
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
