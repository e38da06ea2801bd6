import { randomBytes } from 'node:crypto';
import { hash, verify, type Options } from '@node-rs/argon2';

export const PASSWORD_MIN_LENGTH = 10;
export const PASSWORD_MAX_LENGTH = 1_000;

export interface PasswordHashOptions {
  /** KiB of memory per hash. */
  memoryCost: number;
  timeCost: number;
  parallelism: number;
}

/** OWASP's first argon2id recommendation (19 MiB, 2 passes, 1 lane): ~20–40 ms per hash. */
/**
 * Algorithm.Argon2id's value: the package declares the enum `const`, which this project's
 * verbatimModuleSyntax cannot import, so the number is spelled out (and a test checks
 * the hashes say argon2id).
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-enum-assignment -- the const enum cannot be imported (above); the test pins the value
const ARGON2ID = 2 as Options['algorithm'];

export const DEFAULT_PASSWORD_HASH_OPTIONS: PasswordHashOptions = { memoryCost: 19_456, timeCost: 2, parallelism: 1 };

/**
 * argon2id hashes (PHC strings with their own salt and parameters, so stronger settings
 * later still verify old hashes). @node-rs/argon2 runs on libuv's thread pool, so a hash
 * never blocks the event loop.
 */
export class PasswordHasher {
  private dummy: Promise<string> | null = null;

  constructor(private readonly options: PasswordHashOptions = DEFAULT_PASSWORD_HASH_OPTIONS) {}

  hash(password: string): Promise<string> {
    return hash(password, { algorithm: ARGON2ID, ...this.options });
  }

  /** False for a wrong password and for a hash that cannot be read; never throws for either. */
  async verify(stored: string, password: string): Promise<boolean> {
    // Made now, off the request's path, so even the first unknown email is not slower.
    void this.dummyHash();
    try {
      return await verify(stored, password);
    } catch {
      return false;
    }
  }

  /**
   * Spends the time of one verification against a hash nobody's password matches: sign-in
   * with an unknown email takes as long as with a wrong password, so timing does not tell
   * which emails have accounts.
   */
  async verifyDummy(password: string): Promise<false> {
    await this.verify(await this.dummyHash(), password);
    return false;
  }

  private dummyHash(): Promise<string> {
    this.dummy ??= this.hash(randomBytes(32).toString('base64url'));
    return this.dummy;
  }
}
