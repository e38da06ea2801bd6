import type { UsersTable } from '../db/schema.js';

export type UserRole = 'admin' | 'member';
export const USER_ROLES: readonly UserRole[] = ['admin', 'member'];

/** A dashboard account as the API shows it: never its password hash. */
export interface User {
  id: string;
  email: string;
  role: UserRole;
  createdAt: string;
}

/** The signed-in user of a request (`request.user`). */
export interface SignedInUser {
  id: string;
  email: string;
  role: UserRole;
}

/**
 * The key one mailbox is known by, however its address is capitalised. Only the domain is
 * case-insensitive by the standard, but no mail provider in use treats local parts
 * differently, and two accounts for "Ann@x" and "ann@x" would only confuse.
 */
export function emailKey(email: string): string {
  return email.trim().toLowerCase();
}

export function userFromRow(row: Pick<UsersTable, 'id' | 'email' | 'role' | 'created_at'>): User {
  return { id: row.id, email: row.email, role: row.role as UserRole, createdAt: new Date(row.created_at).toISOString() };
}
