import type { Kysely } from 'kysely';
import type { Clock } from '../core/clock.js';
import type { DatabaseSchema } from '../db/schema.js';
import { newSecretToken, SECRET_TOKEN_PATTERN, sha256Hex } from './secret-token.js';
import type { SignedInUser, UserRole } from './user.js';

const DAY_MS = 86_400_000;
/** A session ends this long after its last use… */
export const SESSION_IDLE_MS = 7 * DAY_MS;
/** …and at the latest this long after sign-in. */
export const SESSION_MAX_MS = 30 * DAY_MS;
/**
 * last_used_at (and with it the idle expiry) is written at most this often per session,
 * so a dashboard polling every second costs no write per request. The idle expiry can
 * therefore come up to a minute early, never late.
 */
const TOUCH_RESOLUTION_MS = 60_000;

/** A valid session, as the auth hook attaches it to a request. */
export interface ActiveSession {
  /** The SHA-256 of the cookie's secret: the row's id, safe to log or compare. */
  id: string;
  user: SignedInUser;
  csrfToken: string;
}

/**
 * Browser sessions. The cookie carries 256 random bits; the table only their SHA-256, so
 * a database reader cannot sign in as anyone. No cache: sign-out, user deletion, role
 * changes, password resets and expiry take effect on the next request in every process (one indexed point read).
 */
export class SessionStore {
  constructor(
    private readonly db: Kysely<DatabaseSchema>,
    private readonly clock: Clock,
  ) {}

  /** A new session for `userId`; returns the cookie's secret, shown nowhere else. */
  async create(userId: string, csrfToken: string): Promise<{ secret: string; session: { id: string; expiresAt: number } }> {
    const now = this.clock.now();
    const secret = newSecretToken();
    const id = sha256Hex(secret);
    const expiresAt = Math.min(now + SESSION_IDLE_MS, now + SESSION_MAX_MS);
    await this.db
      .insertInto('sessions')
      .values({ id, user_id: userId, csrf_token: csrfToken, created_at: now, last_used_at: now, expires_at: expiresAt })
      .execute();
    // Expired rows of anyone are swept here: sign-ins are rare, so this costs nothing noticeable.
    await this.db.deleteFrom('sessions').where('expires_at', '<=', now).execute();
    return { secret, session: { id, expiresAt } };
  }

  /** The session behind a cookie's secret, or null (malformed, unknown, expired, user deleted). */
  async authenticate(secret: string): Promise<ActiveSession | null> {
    if (!SECRET_TOKEN_PATTERN.test(secret)) return null;
    const id = sha256Hex(secret);
    const now = this.clock.now();
    const row = await this.db
      .selectFrom('sessions')
      .innerJoin('users', 'users.id', 'sessions.user_id')
      .select([
        'sessions.id as id',
        'sessions.csrf_token as csrf_token',
        'sessions.created_at as created_at',
        'sessions.last_used_at as last_used_at',
        'sessions.expires_at as expires_at',
        'users.id as user_id',
        'users.email as email',
        'users.role as role',
        'users.must_change_password as must_change_password',
      ])
      .where('sessions.id', '=', id)
      .executeTakeFirst();
    if (!row || row.expires_at <= now) return null;
    if (now - row.last_used_at >= TOUCH_RESOLUTION_MS) await this.touch(row.id, row.created_at, now);
    const user = { id: row.user_id, email: row.email, role: row.role as UserRole, mustChangePassword: Number(row.must_change_password) === 1 };
    return { id: row.id, user, csrfToken: row.csrf_token };
  }

  /** Ends the session with this id (the hash); ending one that is gone is harmless. */
  async end(id: string): Promise<void> {
    await this.db.deleteFrom('sessions').where('id', '=', id).execute();
  }

  /**
   * Awaited (once a minute per session), so the extended expiry is in place before the
   * next request; a failure only leaves the old expiry. The condition keeps several
   * processes from writing more than once a minute between them.
   */
  private async touch(id: string, createdAt: number, now: number): Promise<void> {
    await this.db
      .updateTable('sessions')
      .set({ last_used_at: now, expires_at: Math.min(now + SESSION_IDLE_MS, createdAt + SESSION_MAX_MS) })
      .where('id', '=', id)
      .where('last_used_at', '<=', now - TOUCH_RESOLUTION_MS)
      .execute()
      .catch(() => {});
  }
}
