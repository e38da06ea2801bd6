import { InvalidArgumentError } from 'commander';

/** An integer option within [minimum, maximum], with a message naming the option. */
export function parseLimit(value: string, maximum: number, name: string, minimum = 1): number {
  const parsed = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(parsed) || parsed < minimum || parsed > maximum) {
    throw new InvalidArgumentError(`${name} must be a whole number from ${minimum} to ${maximum} (got "${value}").`);
  }
  return parsed;
}

const DURATION = /^(\d+)\s*(m|h|d|w)$/;
const UNIT_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** `30d`, `12h`, `2w`, `90m` → milliseconds. */
export function parseDuration(value: string, name: string): number {
  const match = DURATION.exec(value.trim());
  if (!match || Number(match[1]) === 0) throw new InvalidArgumentError(`${name} must look like 90m, 12h, 30d or 2w (got "${value}").`);
  return Number(match[1]) * UNIT_MS[match[2]!]!;
}
