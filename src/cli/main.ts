import { Command, CommanderError, InvalidArgumentError } from 'commander';
import { isDocwrightError } from '../core/errors.js';
import { ConfigError } from '../config/load-config.js';
import { analyticsCommand } from './commands/analytics-command.js';
import { backupCommand } from './commands/backup-command.js';
import { docsCommand } from './commands/docs-command.js';
import { jobsCommand } from './commands/jobs-command.js';
import { mcpCommand } from './commands/mcp-command.js';
import { usageCommand } from './commands/usage-command.js';
import { keysCommand } from './commands/keys-command.js';
import { projectsCommand } from './commands/projects-command.js';
import { usersCommand } from './commands/users-command.js';
import { migrateCommand, serveCommand, workerCommand } from './commands/server-commands.js';
import { reclassifyCommand } from './commands/reclassify-command.js';
import { webhooksCommand } from './commands/webhooks-command.js';
import { openApiCommand } from './commands/openapi-command.js';

const program = new Command('docwright')
  .description('Docwright: AI agent jobs for documentation, and visitor analytics that tell humans from AI.')
  .version('0.1.0')
  .showHelpAfterError('(run with --help for usage)')
  .exitOverride();

program.addCommand(serveCommand());
program.addCommand(workerCommand());
program.addCommand(migrateCommand());
program.addCommand(reclassifyCommand());
program.addCommand(backupCommand());
program.addCommand(projectsCommand());
program.addCommand(keysCommand());
program.addCommand(usersCommand());
program.addCommand(analyticsCommand());
program.addCommand(jobsCommand());
program.addCommand(webhooksCommand());
program.addCommand(usageCommand());
program.addCommand(docsCommand());
program.addCommand(mcpCommand());
program.addCommand(openApiCommand());

// addCommand() does not pass exitOverride on, so every subcommand gets it here: usage
// errors then reach the one handler below and exit 2 consistently.
function overrideExits(command: Command): void {
  command.exitOverride();
  command.commands.forEach(overrideExits);
}
overrideExits(program);

function fail(message: string, code = 1): never {
  process.stderr.write(`docwright: ${message}\n`);
  process.exit(code);
}

try {
  await program.parseAsync(process.argv);
} catch (error) {
  // Thrown by an action's own checks (an option parser's are printed by commander itself).
  if (error instanceof InvalidArgumentError) fail(error.message, 2);
  if (error instanceof CommanderError) {
    // Help and version exit 0; usage errors (already printed by commander) exit 2, like a shell builtin.
    process.exit(error.exitCode === 0 ? 0 : 2);
  }
  if (error instanceof ConfigError) fail(error.message, 2);
  if (isDocwrightError(error)) {
    const details = (error.errors ?? []).map((item) => `\n  ${item.path}: ${item.message}`).join('');
    fail(`${error.message}${details}`);
  }
  fail(error instanceof Error ? error.message : String(error));
}
