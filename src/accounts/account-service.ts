import type { Clock } from '../core/clock.js';
import { DocwrightError, conflict, notFound } from '../core/errors.js';
import { newId } from '../core/ids.js';
import type { Database } from '../db/database.js';
import { lockKey, writeTransaction } from '../db/transaction.js';
import type { PasswordHasher } from './password-hasher.js';
import { isSetupToken } from './setup-token.js';
import type { SignInThrottle } from './sign-in-throttle.js';
import { emailKey, userFromRow, type User, type UserRole } from './user.js';

export interface AccountServiceOptions {
  database: Database;
  clock: Clock;
  hasher: PasswordHasher;
  throttle: SignInThrottle;
  instanceSecret: string;
}

export interface NewUser {
  email: string;
  password: string;
  role: UserRole;
}

const invalidCredentials = (): DocwrightError => new DocwrightError('invalid_credentials', 'Wrong email or password.', { status: 401 });

/** Dashboard accounts: the first admin (setup), users, and checking passwords at sign-in. */
export class AccountService {
  constructor(private readonly options: AccountServiceOptions) {}

  /** True while no user exists: the dashboard then offers setup with the setup token. */
  async setupRequired(): Promise<boolean> {
    const row = await this.options.database.db.selectFrom('users').select('id').limit(1).executeTakeFirst();
    return row === undefined;
  }

  /**
   * Creates the first admin with the setup token. Concurrent setups create exactly one:
   * the check and the insert share one transaction, serialised on one lock (PostgreSQL)
   * or on SQLite's write lock, so the second finds a user and gets 409.
   */
  async setup(input: { setupToken: string; email: string; password: string }): Promise<User> {
    if (!isSetupToken(this.options.instanceSecret, input.setupToken)) {
      throw new DocwrightError('invalid_setup_token', 'The setup token is not the one in the server log.', { status: 403 });
    }
    // Hashed before the transaction: argon2 takes tens of milliseconds, the lock none of them.
    const passwordHash = await this.options.hasher.hash(input.password);
    const { database } = this.options;
    return writeTransaction(database, async (executor) => {
      await lockKey(database, executor, 'accounts:setup');
      const existing = await executor.selectFrom('users').select('id').limit(1).executeTakeFirst();
      if (existing) throw conflict('Setup is already done: sign in instead.', 'setup_completed');
      const row = this.newRow({ email: input.email, role: 'admin' }, passwordHash);
      await executor.insertInto('users').values(row).execute();
      return userFromRow(row);
    });
  }

  /** 409 `email_taken` when an account with this email (in any capitalisation) exists. */
  async createUser(input: NewUser): Promise<User> {
    const passwordHash = await this.options.hasher.hash(input.password);
    const row = this.newRow(input, passwordHash);
    const result = await this.options.database.db
      .insertInto('users')
      .values(row)
      .onConflict((onConflict) => onConflict.column('email_key').doNothing())
      .executeTakeFirst();
    if (Number(result.numInsertedOrUpdatedRows ?? 0n) !== 1) throw conflict(`A user with the email ${input.email.trim()} already exists.`, 'email_taken');
    return userFromRow(row);
  }

  async listUsers(): Promise<User[]> {
    const rows = await this.options.database.db
      .selectFrom('users')
      .select(['id', 'email', 'role', 'created_at'])
      .orderBy('created_at', 'asc')
      .orderBy('id', 'asc')
      .execute();
    return rows.map(userFromRow);
  }

  /** Deletes a user and their sessions, which stop working on their next request in every process. */
  async deleteUser(id: string, actingUserId: string): Promise<void> {
    if (id === actingUserId) throw conflict('You cannot delete your own account; ask another admin.', 'cannot_delete_self');
    const deleted = await writeTransaction(this.options.database, async (executor) => {
      // Explicit rather than left to ON DELETE CASCADE, so no connection's foreign_keys pragma matters.
      await executor.deleteFrom('sessions').where('user_id', '=', id).execute();
      const result = await executor.deleteFrom('users').where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows);
    });
    if (deleted === 0) throw notFound(`No user with id "${id}".`);
  }

  /**
   * The user whose email and password these are, else 401 `invalid_credentials` — the same
   * body, and about the same time, for an unknown email and a wrong password. Failures are
   * limited per client address and per email (429 with Retry-After).
   */
  async verifyCredentials(input: { email: string; password: string; address: string }): Promise<User> {
    const key = emailKey(input.email);
    const charge = await this.options.throttle.charge(input.address, key);
    const row = await this.options.database.db.selectFrom('users').selectAll().where('email_key', '=', key).executeTakeFirst();
    const valid =
      row === undefined ? await this.options.hasher.verifyDummy(input.password) : await this.options.hasher.verify(row.password_hash, input.password);
    if (!row || !valid) throw invalidCredentials();
    await charge.refund();
    return userFromRow(row);
  }

  private newRow(input: { email: string; role: UserRole }, passwordHash: string) {
    return {
      id: newId(),
      email: input.email.trim(),
      email_key: emailKey(input.email),
      password_hash: passwordHash,
      role: input.role,
      created_at: this.options.clock.now(),
    };
  }
}
