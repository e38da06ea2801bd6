/**
 * What the layers below the app need of a logger: pino's Logger (src/app/logger.ts) is one,
 * and a test can pass a plain object. Lower layers take a Log instead of importing the app's.
 */
export interface Log {
  error(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  info(fields: object, message: string): void;
  debug(fields: object, message: string): void;
}
