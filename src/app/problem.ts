import { z } from 'zod';
import { defaultTitle, type FieldError } from '../core/errors.js';

/** RFC 9457 problem body, plus `error` (the reference API's member) and a stable `code`. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: string;
  error: string;
  requestId: string;
  errors?: FieldError[];
}

export const problemSchema = z
  .object({
    type: z.string().describe('A URI naming the problem type: urn:docwright:problem:<code>.'),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    code: z.string().describe('Stable machine-readable code, e.g. unauthorized, not_found, validation_failed, rate_limited, conflict.'),
    error: z.string().describe('Repeats detail, for clients of the reference API.'),
    requestId: z.string(),
    errors: z
      .array(z.object({ path: z.string(), message: z.string() }))
      .optional()
      .describe('Field errors of a validation failure; for merge_conflict, the conflicting files (path).'),
  })
  .meta({ id: 'Problem' });

export function buildProblem(input: { status: number; code: string; detail: string; requestId: string; title?: string; errors?: FieldError[] }): Problem {
  const problem: Problem = {
    type: `urn:docwright:problem:${input.code}`,
    title: input.title ?? defaultTitle(input.status),
    status: input.status,
    detail: input.detail,
    code: input.code,
    error: input.detail,
    requestId: input.requestId,
  };
  if (input.errors) problem.errors = input.errors;
  return problem;
}

export const PROBLEM_CONTENT_TYPE = 'application/problem+json; charset=utf-8';
