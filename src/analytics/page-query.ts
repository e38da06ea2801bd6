import { validationFailed, type FieldError } from '../core/errors.js';
import { SORT_ORDERS, VISITORS_SORTS, type SortOrder, type VisitorsQuery, type VisitorsSort } from './analytics-types.js';

export const DEFAULT_VISITORS_LIMIT = 50;
export const MAX_VISITORS_LIMIT = 250;

export interface PageQuery {
  limit: number;
  offset: number;
  sort: VisitorsSort;
  order: SortOrder | undefined;
}

/**
 * The paging and ordering of a per-page list (/visitors, /views), checked the way the
 * routes' schemas check them, for callers that skip the routes (CLI, dashboard, tests):
 * every bad field is named in one 400.
 */
export function checkedPageQuery(query: VisitorsQuery): PageQuery {
  return checkedSortedPage(query, VISITORS_SORTS, 'total');
}

/** `limit` (1 to 250, default 50) and `offset` (at least 0) of any paged report. */
export function checkedListPage(query: { limit?: number; offset?: number }): { limit: number; offset: number } {
  const { limit, offset, errors } = listPage(query);
  if (errors.length > 0) throw validationFailed('The query parameters failed validation.', errors);
  return { limit, offset };
}

/** A paged report with its own sorts: every bad field in one 400. */
export function checkedSortedPage<Sort extends string>(
  query: { limit?: number; offset?: number; sort?: string; order?: string },
  sorts: readonly Sort[],
  fallback: Sort,
): { limit: number; offset: number; sort: Sort; order: SortOrder | undefined } {
  const { limit, offset, errors } = listPage(query);
  const sort = checkedSort(query.sort ?? fallback, sorts, errors);
  const order = checkedOrder(query.order, errors);
  if (errors.length > 0) throw validationFailed('The query parameters failed validation.', errors);
  return { limit, offset, sort, order };
}

function listPage(query: { limit?: number; offset?: number }) {
  const limit = query.limit ?? DEFAULT_VISITORS_LIMIT;
  const offset = query.offset ?? 0;
  const errors: FieldError[] = [];
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_VISITORS_LIMIT)
    errors.push({ path: 'limit', message: `must be an integer from 1 to ${MAX_VISITORS_LIMIT}` });
  if (!Number.isInteger(offset) || offset < 0) errors.push({ path: 'offset', message: 'must be an integer of at least 0' });
  return { limit, offset, errors };
}

function checkedSort<Sort extends string>(sort: string, sorts: readonly Sort[], errors: FieldError[]): Sort {
  if (!(sorts as readonly string[]).includes(sort)) errors.push({ path: 'sort', message: `must be one of ${sorts.join(', ')}` });
  return sort as Sort;
}

function checkedOrder(order: string | undefined, errors: FieldError[]): SortOrder | undefined {
  if (order !== undefined && !(SORT_ORDERS as readonly string[]).includes(order))
    errors.push({ path: 'order', message: `must be one of ${SORT_ORDERS.join(', ')}` });
  return order as SortOrder | undefined;
}
