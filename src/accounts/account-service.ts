import { randomBytes } from 'node:crypto';
import type { Clock } from '../core/clock.js';
import { DocwrightError, badRequest, conflict, notFound } from '../core/errors.js';
import { newId } from '../core/ids.js';
import type { Database } from '../db/database.js';
import { lockKey, writeTransaction, type Executor } from '../db/transaction.js';
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
/** 403, not 401: the session is fine, and a 401 would sign the dashboard out. */
const wrongCurrentPassword = (): DocwrightError => new DocwrightError('invalid_current_password', 'The current password is wrong.', { status: 403 });

/** 120 random bits, 20 characters: typed once by the user, then replaced. */
const newTemporaryPassword = (): string => randomBytes(15).toString('base64url');

/** Every change of who is an admin takes this lock, so two demotions cannot both pass the last-admin check. */
const ADMINS_LOCK = 'accounts:admins';

/** Dashboard accounts: the first admin (setup), users and their roles, passwords (checks at sign-in, changes, resets). */
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
      .select(['id', 'email', 'role', 'created_at', 'must_change_password'])
      .orderBy('created_at', 'asc')
      .orderBy('id', 'asc')
      .execute();
    return rows.map(userFromRow);
  }

  /** Deletes a user and their sessions, which stop working on their next request in every process. */
  async deleteUser(id: string, actingUserId: string): Promise<void> {
    if (id === actingUserId) throw conflict('You cannot delete your own account; ask another admin.', 'cannot_delete_self');
    const { database } = this.options;
    const deleted = await writeTransaction(database, async (executor) => {
      await lockKey(database, executor, ADMINS_LOCK);
      const row = await executor.selectFrom('users').select('role').where('id', '=', id).executeTakeFirst();
      if (row?.role === 'admin') await this.keepAnAdmin(executor);
      // Explicit rather than left to ON DELETE CASCADE, so no connection's foreign_keys pragma matters.
      await executor.deleteFrom('sessions').where('user_id', '=', id).execute();
      const result = await executor.deleteFrom('users').where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows);
    });
    if (deleted === 0) throw notFound(`No user with id "${id}".`);
  }

  /**
   * Makes a user admin or member. Sessions read the role from the user's row on every
   * request, so the change holds from the user's next request in every process.
   * 409 `last_admin` rather than leave the instance without an admin.
   */
  async setRole(id: string, role: UserRole): Promise<User> {
    const { database } = this.options;
    return writeTransaction(database, async (executor) => {
      await lockKey(database, executor, ADMINS_LOCK);
      const row = await executor
        .selectFrom('users')
        .select(['id', 'email', 'role', 'created_at', 'must_change_password'])
        .where('id', '=', id)
        .executeTakeFirst();
      if (!row) throw notFound(`No user with id "${id}".`);
      if (row.role === 'admin' && role !== 'admin') await this.keepAnAdmin(executor);
      await executor.updateTable('users').set({ role }).where('id', '=', id).execute();
      return userFromRow({ ...row, role });
    });
  }

  /**
   * An admin's reset of another user's password: a generated temporary password (returned
   * once, stored only hashed), every session of the user ended, and the next session
   * limited to setting a new password. Generated rather than chosen by the admin, so it is
   * never weak or reused, and the admin never picks the user's password.
   */
  async resetPassword(id: string, actingUserId: string): Promise<{ user: User; temporaryPassword: string }> {
    if (id === actingUserId) throw conflict('Change your own password on your account page instead.', 'cannot_reset_self');
    const temporaryPassword = newTemporaryPassword();
    const passwordHash = await this.options.hasher.hash(temporaryPassword);
    const user = await writeTransaction(this.options.database, async (executor) => {
      const row = await executor
        .updateTable('users')
        .set({ password_hash: passwordHash, must_change_password: 1 })
        .where('id', '=', id)
        .returning(['id', 'email', 'role', 'created_at', 'must_change_password'])
        .executeTakeFirst();
      if (!row) throw notFound(`No user with id "${id}".`);
      await executor.deleteFrom('sessions').where('user_id', '=', id).execute();
      return userFromRow(row);
    });
    return { user, temporaryPassword };
  }

  /**
   * The signed-in user's own change: the current password is checked under the sign-in
   * throttle (per address and per email, the same budget as sign-in, so a stolen session
   * gives no faster way to guess). Every other session of the user ends; `keepSessionId`
   * (the caller's) stays, and no longer needs a new password.
   */
  async changePassword(input: { userId: string; keepSessionId: string; currentPassword: string; newPassword: string; address: string }): Promise<void> {
    const { database, hasher, throttle } = this.options;
    const row = await database.db.selectFrom('users').select(['email_key', 'password_hash']).where('id', '=', input.userId).executeTakeFirst();
    if (!row) throw notFound('Your account no longer exists.');
    const charge = await throttle.charge(input.address, row.email_key);
    if (!(await hasher.verify(row.password_hash, input.currentPassword))) throw wrongCurrentPassword();
    await charge.refund();
    if (input.newPassword === input.currentPassword) throw badRequest('password_unchanged', 'The new password must differ from the current one.');
    const passwordHash = await hasher.hash(input.newPassword);
    await writeTransaction(database, async (executor) => {
      await executor.updateTable('users').set({ password_hash: passwordHash, must_change_password: 0 }).where('id', '=', input.userId).execute();
      await executor.deleteFrom('sessions').where('user_id', '=', input.userId).where('id', '!=', input.keepSessionId).execute();
    });
  }

  /** Ends every session of a user, in every process from their next request on. */
  async endAllSessions(userId: string): Promise<void> {
    await this.options.database.db.deleteFrom('sessions').where('user_id', '=', userId).execute();
  }

  /** Throws 409 `last_admin` when the admin about to be demoted or deleted is the only one (call under ADMINS_LOCK). */
  private async keepAnAdmin(executor: Executor): Promise<void> {
    const admins = await executor
      .selectFrom('users')
      .select((eb) => eb.fn.countAll<number | string>().as('count'))
      .where('role', '=', 'admin')
      .executeTakeFirstOrThrow();
    if (Number(admins.count) <= 1) throw conflict('This is the only admin: make another user admin first.', 'last_admin');
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
      must_change_password: 0,
    };
  }
}
