import pino, { type Logger, type LevelWithSilent } from 'pino';
import { maskUrlPasswords } from '../core/url-password.js';

/**
 * Paths scrubbed from every log line. Keys and tokens must never be written in plaintext,
 * wherever they sit in a logged object.
 */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'req.headers["x-csrf-token"]',
  'res.headers["set-cookie"]',
  'headers.cookie',
  'headers["set-cookie"]',
  'cookie',
  'setupToken',
  'csrfToken',
  'forgeToken',
  'passwordHash',
  'password_hash',
  'headers.authorization',
  'authorization',
  'key',
  'token',
  'apiKey',
  'secret',
  'password',
  '*.key',
  '*.token',
  '*.apiKey',
  '*.secret',
  '*.password',
  '*.cookie',
  '*.setupToken',
  '*.csrfToken',
  '*.forgeToken',
  '*.passwordHash',
  '*.password_hash',
  '*.privateKey',
  '*.credentials',
];

/** A local pull request's link is its own credential (`?token=`): logged without it. */
export function redactUrl(url: string): string {
  return url.replace(/([?&]token=)[^&#]*/gi, '$1[REDACTED]');
}

export function createLogger(options: { level: LevelWithSilent; destination?: pino.DestinationStream }): Logger {
  return pino(
    {
      level: options.level,
      redact: { paths: REDACTED_PATHS, censor: '[REDACTED]' },
      base: { service: 'docwright' },
      // Request lines carry method, url and id only: no headers, no client IP.
      serializers: {
        req: (request: { method: string; url: string; id: string }) => ({ method: request.method, url: redactUrl(request.url), id: request.id }),
        // A driver or a library may put a connection URL in an error; its password stays out.
        err: (error: Error) => {
          const serialized = pino.stdSerializers.err(error);
          serialized.message = maskUrlPasswords(serialized.message);
          if (typeof serialized.stack === 'string') serialized.stack = maskUrlPasswords(serialized.stack);
          return serialized;
        },
      },
    },
    options.destination,
  );
}

export type { Logger };
