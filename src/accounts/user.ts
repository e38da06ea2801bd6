import type { UsersTable } from '../db/schema.js';

export type UserRole = 'admin' | 'member';
export const USER_ROLES: readonly UserRole[] = ['admin', 'member'];

/** A dashboard account as the API shows it: never its password hash. */
export interface User {
  id: string;
  email: string;
  role: UserRole;
  createdAt: string;
  /** True after an admin reset the password, until the user sets a new one. */
  mustChangePassword: boolean;
}

/** The signed-in user of a request (`request.user`). */
export interface SignedInUser {
  id: string;
  email: string;
  role: UserRole;
  /** While true, the session opens only the routes that set a new password or sign out (absent: false). */
  mustChangePassword?: boolean;
}

/**
 * The key one mailbox is known by, however its address is capitalised. Only the domain is
 * case-insensitive by the standard, but no mail provider in use treats local parts
 * differently, and two accounts for "Ann@x" and "ann@x" would only confuse.
 */
export function emailKey(email: string): string {
  return email.trim().toLowerCase();
}

export function userFromRow(row: Pick<UsersTable, 'id' | 'email' | 'role' | 'created_at' | 'must_change_password'>): User {
  return {
    id: row.id,
    email: row.email,
    role: row.role as UserRole,
    createdAt: new Date(row.created_at).toISOString(),
    mustChangePassword: Number(row.must_change_password) === 1,
  };
}
