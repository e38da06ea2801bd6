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
  const limit = query.limit ?? DEFAULT_VISITORS_LIMIT;
  const offset = query.offset ?? 0;
  const errors: FieldError[] = [];
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_VISITORS_LIMIT)
    errors.push({ path: 'limit', message: `must be an integer from 1 to ${MAX_VISITORS_LIMIT}` });
  if (!Number.isInteger(offset) || offset < 0) errors.push({ path: 'offset', message: 'must be an integer of at least 0' });
  const sort = query.sort ?? 'total';
  if (!VISITORS_SORTS.includes(sort)) errors.push({ path: 'sort', message: `must be one of ${VISITORS_SORTS.join(', ')}` });
  if (query.order !== undefined && !SORT_ORDERS.includes(query.order)) errors.push({ path: 'order', message: `must be one of ${SORT_ORDERS.join(', ')}` });
  if (errors.length > 0) throw validationFailed('The query parameters failed validation.', errors);
  return { limit, offset, sort, order: query.order };
}
