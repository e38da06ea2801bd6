import { z } from 'zod';
import { problemSchema } from '../app/problem.js';
import { HIT_CLASSES } from './classification/classify-hit.js';
import { DEFAULT_VISITORS_LIMIT, MAX_BATCH_EVENTS, MAX_DAILY_DAYS, MAX_VISITORS_LIMIT } from './analytics-service.js';
import { MAX_ID_LENGTH, MAX_PATH_LENGTH, MAX_REFERRER_LENGTH, MAX_USER_AGENT_LENGTH } from './event-validation.js';
import { MAX_SIGNATURE_HEADER_LENGTH } from './verification/signature-field.js';
import { parseDateOrDateTime } from './parse-instant.js';
import { SORT_ORDERS, VISITORS_SORTS } from './analytics-types.js';

const dateBound = (description: string) =>
  z
    .string()
    .refine((value) => parseDateOrDateTime(value) !== null, { message: 'must be a date (YYYY-MM-DD) or an ISO 8601 date-time' })
    .optional()
    .describe(description);

const DATE_FROM = 'Start of the range, inclusive: YYYY-MM-DD (UTC midnight) or an ISO 8601 date-time (UTC unless it has an offset). Omitted: no lower limit.';
const DATE_TO = 'End of the range, exclusive: results include instants before it, not the instant itself. Same formats as dateFrom. Omitted: no upper limit.';

export const rangeQuerySchema = z.object({ dateFrom: dateBound(DATE_FROM), dateTo: dateBound(DATE_TO) });

export const visitorsQuerySchema = rangeQuerySchema.extend({
  limit: z.coerce
    .number({ error: 'must be an integer' })
    .int({ error: 'must be an integer' })
    .min(1)
    .max(MAX_VISITORS_LIMIT)
    .default(DEFAULT_VISITORS_LIMIT)
    .describe(`Maximum entries per page, 1 to ${MAX_VISITORS_LIMIT}.`),
  offset: z.coerce
    .number({ error: 'must be an integer' })
    .int({ error: 'must be an integer' })
    .min(0)
    .default(0)
    .describe('Entries to skip; the next page is at offset + limit.'),
  sort: z
    .enum(VISITORS_SORTS, { error: `must be one of ${VISITORS_SORTS.join(', ')}` })
    .optional()
    .describe('What pages are ranked by: total (default), human, ai or path. Ties are broken by path ascending, so offset pages never overlap or skip.'),
  order: z
    .enum(SORT_ORDERS, { error: `must be one of ${SORT_ORDERS.join(', ')}` })
    .optional()
    .describe('asc or desc. Default: desc for total, human and ai; asc for path.'),
});

export const dailyQuerySchema = z.object({
  dateFrom: dateBound(
    `Start of the range, inclusive (formats as for /visitors). Omitted: 30 days before dateTo. At most ${MAX_DAILY_DAYS} days before dateTo.`,
  ),
  dateTo: dateBound('End of the range, exclusive. Omitted: the end of today (UTC).'),
});

const counts = {
  human: z.number().int().describe('Unique visitors of class human.'),
  ai: z.number().int().describe('Unique visitors of class ai (assistants and agents acting for a person, Markdown fetches).'),
  total: z.number().int().describe('Unique visitors of either class, each counted once: at most human + ai.'),
};

export const visitorTotalsSchema = z.object(counts).meta({ id: 'VisitorTotals' });
export const pageVisitorsSchema = z.object({ path: z.string(), ...counts }).meta({ id: 'PageVisitors' });

export const visitorsResponseSchema = z
  .object({
    totals: visitorTotalsSchema.describe('Site-wide unique visitors in the range.'),
    visitors: z
      .array(pageVisitorsSchema)
      .describe('Pages with at least one human or ai visitor in the range, in the order asked for (default: total descending), ties by path ascending.'),
    hasMore: z.boolean().describe('True when more entries follow this page.'),
  })
  .meta({ id: 'Visitors' });

const viewCounts = {
  human: z.number().int().describe('Views (hits) of class human.'),
  ai: z.number().int().describe('Views (hits) of class ai (assistants and agents acting for a person, Markdown fetches).'),
  total: z.number().int().describe('All views of either class: human + ai. Crawler hits (ai-search, ai-training, bot) are not views; see /traffic.'),
};

export const viewTotalsSchema = z.object(viewCounts).meta({ id: 'ViewTotals' });
export const pageViewsSchema = z.object({ path: z.string(), ...viewCounts }).meta({ id: 'PageViews' });

export const viewsResponseSchema = z
  .object({
    totals: viewTotalsSchema.describe('Site-wide views in the range.'),
    views: z
      .array(pageViewsSchema)
      .describe('Pages with at least one human or ai view in the range, in the order asked for (default: total descending), ties by path ascending.'),
    hasMore: z.boolean().describe('True when more entries follow this page.'),
  })
  .meta({ id: 'Views' });

export const dailyResponseSchema = z
  .object({
    dateFrom: z.string().describe('Start of the range answered (ISO 8601).'),
    dateTo: z.string().describe('End of the range answered, exclusive (ISO 8601).'),
    days: z
      .array(z.object({ date: z.string().describe('UTC date, YYYY-MM-DD.'), ...counts }))
      .describe('Every UTC day the range touches, oldest first, zeros included. A day cut by a date-time bound counts only its part inside the range.'),
  })
  .meta({ id: 'DailyVisitors' });

const hitClassSchema = z.enum(HIT_CLASSES as [string, ...string[]]);

export const trafficResponseSchema = z
  .object({
    classes: z
      .array(
        z.object({
          class: hitClassSchema,
          hits: z.number().int(),
          visitors: z.number().int().describe('Unique visitors with at least one hit of this class.'),
        }),
      )
      .describe('All five classes, always in the order human, ai, ai-search, ai-training, bot.'),
    agents: z
      .array(
        z.object({
          agent: z.string().describe('Agent or bot name, e.g. ChatGPT, ClaudeBot, Googlebot.'),
          class: hitClassSchema,
          hits: z.number().int(),
          visitors: z.number().int(),
        }),
      )
      .describe('Named agents by hits descending (then visitors, then name), at most 100.'),
    hasMoreAgents: z.boolean().describe('True when further agents had hits in the range.'),
  })
  .meta({ id: 'Traffic' });

/** One event as documented; the route validates items itself, one by one, so bad items are reported rather than failing the batch. */
export const eventDocumentationSchema = z.object({
  id: z.string().min(1).max(MAX_ID_LENGTH).optional().describe('Your id for the event, unique per project: a retried event with the same id is counted once.'),
  timestamp: z
    .union([z.string(), z.number().int().min(0)])
    .optional()
    .describe(
      'ISO 8601 date-time or milliseconds since the epoch. Omitted: when the batch arrived. Rejected when more than 5 minutes ahead or older than the retention period.',
    ),
  path: z
    .string()
    .max(MAX_PATH_LENGTH)
    .describe('Page path starting with "/"; a query string and fragment are dropped, after its utm_source is read for AI referrals (docs/classification.md).'),
  userAgent: z.string().optional().describe(`The client's User-Agent header (cut at ${MAX_USER_AGENT_LENGTH} characters).`),
  ip: z.string().optional().describe('Client IPv4 or IPv6 address. Only hashed into the visitor id; never stored.'),
  visitorId: z
    .string()
    .min(1)
    .max(MAX_ID_LENGTH)
    .optional()
    .describe('Your visitor id; takes precedence over ip and userAgent. One of visitorId and ip is required.'),
  accept: z.string().optional().describe("The request's Accept header; preferring text/markdown classifies the hit as ai."),
  referrer: z
    .string()
    .optional()
    .describe(`Referring URL (cut at ${MAX_REFERRER_LENGTH} characters). A person referred by an AI product (chatgpt.com, perplexity.ai…) is an AI referral.`),
  status: z
    .number()
    .int()
    .min(100)
    .max(599)
    .optional()
    .describe(
      'HTTP status of the response the client got, when known (for the report of pages agents requested that answered 4xx). Anything else is rejected per item.',
    ),
  webBotAuth: z
    .object({
      signature: z.string().max(MAX_SIGNATURE_HEADER_LENGTH).describe('The Signature header as received.'),
      signatureInput: z.string().max(MAX_SIGNATURE_HEADER_LENGTH).describe('The Signature-Input header as received.'),
      signatureAgent: z
        .string()
        .max(MAX_SIGNATURE_HEADER_LENGTH)
        .optional()
        .describe('The Signature-Agent header as received: a string ("https://chatgpt.com") or a dictionary (sig1="https://…").'),
      method: z.string().describe('The request method, e.g. GET.'),
      authority: z.string().max(255).describe('The Host the request was sent to, e.g. docs.example.com.'),
      path: z.string().max(8192).describe('The request target as sent, with its query string, e.g. /guide?tab=1.'),
    })
    .optional()
    .describe(
      "The request's Web Bot Auth headers (draft-ietf-webbotauth-httpsig-protocol over RFC 9421), to verify the agent: a valid signature makes the hit verified, an invalid one (tampered, expired, replayed, wrong key) spoofed. Never stored. Malformed or oversized: the event is rejected with invalid_signature.",
    ),
});

const { $schema: _ignored, ...eventJsonSchema } = z.toJSONSchema(eventDocumentationSchema) as Record<string, unknown>;

export const eventsBodySchema = z.object({
  events: z
    .array(z.unknown().meta({ ...eventJsonSchema, description: 'A page hit. Each item is validated on its own.' }))
    .max(MAX_BATCH_EVENTS)
    .describe(`Page hits, at most ${MAX_BATCH_EVENTS}.`),
});

export const eventsResponseSchema = z
  .object({
    accepted: z.number().int().describe('Valid events: stored, or already stored under the same id.'),
    duplicates: z.number().int().describe('How many accepted events repeated an id stored before.'),
    rejected: z
      .array(
        z.object({
          index: z.number().int().describe('Position of the event in the batch, from 0.'),
          code: z
            .string()
            .describe(
              'invalid_event, invalid_field, invalid_path, invalid_timestamp, timestamp_in_future, timestamp_too_old, missing_visitor or invalid_signature.',
            ),
          message: z.string(),
        }),
      )
      .describe('Events not stored, with the reason.'),
  })
  .meta({ id: 'EventsAccepted' });

/** The 503 answers of every analytics report: the request was fine, send it again. */
export const reportUnavailable = {
  503: problemSchema.describe(
    'Not answered, try again: analytics_reports_busy (SQLite: 64 reports already wait for this process; Retry-After), analytics_report_failed (a report thread stopped), or database_unavailable / database_busy (the database or ClickHouse could not be reached or gave up; Retry-After).',
  ),
};

/** The 503 answers of ingestion (events and beacons): the request may not have been stored. */
export const ingestUnavailable = {
  503: problemSchema.describe(
    'Not stored (or not known to be): send the request again after Retry-After; events with an id count once however often they are sent. analytics_backlog (ClickHouse: the local spool holds DOCWRIGHT_ANALYTICS_SPOOL_MAX_HITS hits, default 2,000,000, not yet written into ClickHouse; nothing of the request was stored), or database_unavailable / database_busy (the database or ClickHouse could not be reached or gave up).',
  ),
};
