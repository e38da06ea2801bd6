import type { Clock } from '../core/clock.js';
import { DocwrightError } from '../core/errors.js';
import type { Database } from '../db/database.js';
import { lockKey, writeTransaction } from '../db/transaction.js';
import { clientKey } from '../rate-limit/client-rate-limiter.js';
import { keyedHash } from './secret-token.js';

export interface SignInThrottleSettings {
  /** Failed sign-ins allowed per client address, and per email, within the window. */
  failures: number;
  windowMs: number;
}

export const DEFAULT_SIGN_IN_THROTTLE: SignInThrottleSettings = { failures: 10, windowMs: 15 * 60_000 };

/** What a charged attempt gives back when the password turned out right. */
export interface SignInCharge {
  refund(): Promise<void>;
}

/**
 * Limits password guessing per client address and per email, in the database so the limit
 * holds across every process. Each attempt is charged before the password is checked and
 * refunded when it was right: concurrent guesses cannot slip past the count while their
 * (slow) hashes run, and successful sign-ins never count. Subjects are keyed hashes, so
 * the table holds no address and no email.
 */
export class SignInThrottle {
  constructor(
    private readonly database: Database,
    private readonly clock: Clock,
    private readonly instanceSecret: string,
    private readonly settings: SignInThrottleSettings = DEFAULT_SIGN_IN_THROTTLE,
  ) {}

  /** Charges one attempt to the address and the email, or throws 429 (with Retry-After) without charging. */
  async charge(address: string, emailKey: string): Promise<SignInCharge> {
    const subjects = [keyedHash(this.instanceSecret, 'sign-in address', clientKey(address)), keyedHash(this.instanceSecret, 'sign-in email', emailKey)];
    const { windowMs, failures } = this.settings;
    const ids = await writeTransaction(this.database, async (executor) => {
      const now = this.clock.now();
      for (const subject of subjects) await lockKey(this.database, executor, `sign-in:${subject}`);
      await executor
        .deleteFrom('sign_in_failures')
        .where('subject', 'in', subjects)
        .where('at', '<=', now - windowMs)
        .execute();
      for (const subject of subjects) {
        const rows = await executor.selectFrom('sign_in_failures').select('at').where('subject', '=', subject).orderBy('at', 'asc').execute();
        if (rows.length >= failures) {
          // Room frees up when enough of the oldest failures have left the window.
          const freeing = rows[rows.length - failures]!;
          const retryAfter = Math.max(1, Math.ceil((freeing.at + windowMs - now) / 1000));
          throw new DocwrightError('rate_limited', `Too many failed sign-ins; try again in ${retryAfter} seconds.`, {
            status: 429,
            headers: { 'Retry-After': String(retryAfter) },
          });
        }
      }
      const inserted: number[] = [];
      for (const subject of subjects) {
        const row = await executor.insertInto('sign_in_failures').values({ subject, at: now }).returning('id').executeTakeFirstOrThrow();
        inserted.push(Number(row.id));
      }
      return inserted;
    });
    return {
      refund: async () => {
        await this.database.db.deleteFrom('sign_in_failures').where('id', 'in', ids).execute();
      },
    };
  }
}
