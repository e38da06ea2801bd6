import { InvalidArgumentError } from 'commander';
import { HIT_FIELDS, LOG_FORMATS, type FieldMap, type HitField, type LogFormatChoice } from '../analytics/import/index.js';

const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/;

/**
 * `--from`/`--to`: a day (`2025-06-01`) or an ISO 8601 date-time with a zone, as the API
 * accepts. Checked here too so a typo fails before any request, with the option's name.
 * Returns the value unchanged and its instant (UTC ms) for range checks.
 */
export interface DateOption {
  text: string;
  instant: number;
}

export function parseDateOption(value: string, name: string): DateOption {
  const text = value.trim();
  const day = DAY.exec(text);
  let instant = Number.NaN;
  if (day) {
    instant = Date.UTC(Number(day[1]), Number(day[2]) - 1, Number(day[3]));
    // Date.UTC rolls 2025-02-30 over into March; a real day formats back to itself.
    if (Number.isNaN(instant) || new Date(instant).toISOString().slice(0, 10) !== text) instant = Number.NaN;
  } else if (DATE_TIME.test(text)) {
    instant = Date.parse(text);
  }
  if (Number.isNaN(instant)) {
    throw new InvalidArgumentError(`${name} must be a date (2025-06-01) or an ISO 8601 date-time with a zone (2025-06-01T12:00:00Z); got "${value}".`);
  }
  return { text, instant };
}

/** `--format` of the import: the engine's formats, with `jsonl` as the name people type for JSON lines. */
export function parseImportFormat(value: string): LogFormatChoice {
  const name = value.trim().toLowerCase();
  if (name === 'jsonl' || name === 'json') return 'json';
  if (name === 'auto' || (LOG_FORMATS as readonly string[]).includes(name)) return name as LogFormatChoice;
  throw new InvalidArgumentError(`--format must be auto, combined, common or jsonl (got "${value}").`);
}

/**
 * Collects repeated `--field name=column` into a field map. Giving a field twice lists
 * both columns, tried in order, as the engine's field map allows.
 */
export function collectFieldMapping(value: string, previous: FieldMap | undefined): FieldMap {
  const at = value.indexOf('=');
  const field = at < 0 ? '' : value.slice(0, at).trim();
  const column = at < 0 ? '' : value.slice(at + 1).trim();
  if (!(HIT_FIELDS as readonly string[]).includes(field) || column === '') {
    throw new InvalidArgumentError(`--field must be NAME=COLUMN with NAME one of ${HIT_FIELDS.join(', ')} (got "${value}").`);
  }
  const map: FieldMap = { ...previous };
  const existing = map[field as HitField];
  map[field as HitField] = existing === undefined ? column : [...(typeof existing === 'string' ? [existing] : existing), column];
  return map;
}
