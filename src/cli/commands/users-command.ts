import { Command, Option } from 'commander';
import { z } from 'zod';
import { emailSchema, newPasswordSchema } from '../../accounts/account-schemas.js';
import { USER_ROLES, type UserRole } from '../../accounts/user.js';
import { validationFailed } from '../../core/errors.js';
import { withLocalServices } from '../local-services.js';
import { printJson, printTable } from '../output.js';
import { readNewPassword } from '../password-input.js';

const newUserSchema = z.object({ email: emailSchema, password: newPasswordSchema });

export function usersCommand(): Command {
  const command = new Command('users').description('Create and list dashboard users (works on the local store directly).');

  command
    .command('create')
    .description(
      'Create a dashboard user. The password is asked for twice without echo, or read from the first line of standard input when it is not a terminal. Works whether or not users exist: the way in when the setup token is lost.',
    )
    .requiredOption('--email <email>', 'the email to sign in with')
    .addOption(
      new Option(
        '--role <role>',
        'admin: manages projects, keys and users; member: runs jobs, reads analytics (default: admin for the first user, else member)',
      ).choices([...USER_ROLES]),
    )
    .option('--json', 'print the user {"id", "email", "role", "createdAt"} as JSON')
    .addHelpText(
      'after',
      '\nExamples:\n  docwright users create --email ann@example.com --role admin\n  printf \'%s\\n\' "$PASSWORD" | docwright users create --email bot@example.com\n',
    )
    .action(async (options: { email: string; role?: UserRole; json?: boolean }) => {
      const password = await readNewPassword();
      const parsed = newUserSchema.safeParse({ email: options.email, password });
      if (!parsed.success) {
        throw validationFailed(
          'The user is not valid.',
          parsed.error.issues.map((issue) => ({ path: issue.path.join('.'), message: issue.message })),
        );
      }
      const user = await withLocalServices(async (services) => {
        // The first user must be able to manage the rest: a lone member would lock admins out.
        const role = options.role ?? ((await services.accounts.setupRequired()) ? 'admin' : 'member');
        return services.accounts.createUser({ ...parsed.data, role });
      });
      if (options.json) return printJson(user);
      process.stdout.write(`Created ${user.role} ${user.email} (${user.id}). They can sign in to the dashboard now.\n`);
    });

  command
    .command('list')
    .description('List dashboard users, oldest first.')
    .option('--json', 'print {users: [...]} as JSON')
    .action(async (options: { json?: boolean }) => {
      const users = await withLocalServices((services) => services.accounts.listUsers());
      if (options.json) return printJson({ users });
      if (users.length === 0) return void process.stdout.write('No users yet. Create one with: docwright users create --email YOU --role admin\n');
      printTable(
        ['ID', 'EMAIL', 'ROLE', 'CREATED'],
        users.map((user) => [user.id, user.email, user.role, user.createdAt]),
      );
    });

  return command;
}
