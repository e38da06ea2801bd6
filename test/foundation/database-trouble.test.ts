import { describe, expect, test } from 'vitest';
import { databaseTrouble } from '../../src/db/database-unavailable.js';

const withCode = (message: string, code: string): Error => Object.assign(new Error(message), { code });

describe('databaseTrouble: which errors say "the database, not the request"', () => {
  test('lost, refused and terminated connections are unavailable', () => {
    expect(databaseTrouble(withCode('terminating connection due to administrator command', '57P01'))).toBe('database_unavailable');
    expect(databaseTrouble(withCode('the database system is starting up', '57P03'))).toBe('database_unavailable');
    expect(databaseTrouble(withCode('connection failure', '08006'))).toBe('database_unavailable');
    expect(databaseTrouble(withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'))).toBe('database_unavailable');
    expect(databaseTrouble(new Error('Connection terminated unexpectedly'))).toBe('database_unavailable');
    expect(databaseTrouble(new Error('Client has encountered a connection error and is not queryable'))).toBe('database_unavailable');
    expect(databaseTrouble(new Error('wrapped', { cause: withCode('x', '57P01') }))).toBe('database_unavailable');
  });

  test('deadlocks, serialization failures and a busy SQLite file are busy', () => {
    expect(databaseTrouble(withCode('deadlock detected', '40P01'))).toBe('database_busy');
    expect(databaseTrouble(withCode('could not serialize access', '40001'))).toBe('database_busy');
    expect(databaseTrouble(withCode('database is locked', 'SQLITE_BUSY'))).toBe('database_busy');
  });

  test('everything else is not the database being unavailable', () => {
    expect(databaseTrouble(withCode('duplicate key value violates unique constraint', '23505'))).toBeUndefined();
    expect(databaseTrouble(withCode('syntax error', '42601'))).toBeUndefined();
    expect(databaseTrouble(withCode('UNIQUE constraint failed', 'SQLITE_CONSTRAINT_PRIMARYKEY'))).toBeUndefined();
    expect(databaseTrouble(new TypeError('undefined is not a function'))).toBeUndefined();
    expect(databaseTrouble('Connection terminated')).toBeUndefined();
  });
});
