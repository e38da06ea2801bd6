import type { SortOrder, VisitorsSort } from '../../api/analytics-api';
import type { PageVisitors } from '../../api/types';
import { formatNumber } from '../../lib/format';

interface Props {
  rows: PageVisitors[];
  sort: VisitorsSort;
  order: SortOrder;
  page: number;
  pageSize: number;
  hasMore: boolean;
  loading: boolean;
  onSort: (sort: VisitorsSort) => void;
  onPage: (page: number) => void;
  onDownload: () => void;
}

const COLUMNS: Array<{ id: VisitorsSort; label: string; numeric: boolean }> = [
  { id: 'path', label: 'Page', numeric: false },
  { id: 'human', label: 'Human', numeric: true },
  { id: 'ai', label: 'AI', numeric: true },
  { id: 'total', label: 'Total', numeric: true },
];

/** Pages by unique visitors; sorting and paging happen on the server. */
export function TopPagesTable({ rows, sort, order, page, pageSize, hasMore, loading, onSort, onPage, onDownload }: Props) {
  const first = (page - 1) * pageSize + 1;
  const max = Math.max(1, ...rows.map((row) => row.total));
  return (
    <section class="card" aria-labelledby="pages-heading" aria-busy={loading}>
      <div class="section-header">
        <h2 id="pages-heading">Top pages</h2>
        <div class="section-tools">
          <button type="button" class="btn btn-small" onClick={onDownload} disabled={rows.length === 0}>
            Download CSV
          </button>
        </div>
      </div>
      {rows.length === 0 ? (
        <p class="muted">{page > 1 ? 'No more pages.' : 'No page had a human or AI visitor in this range.'}</p>
      ) : (
        <div class="table-scroll" tabIndex={0} role="region" aria-label="Top pages">
          <table class="table" data-testid="pages-table">
            <thead>
              <tr>
                {COLUMNS.map((column) => (
                  <th
                    key={column.id}
                    scope="col"
                    class={column.numeric ? 'num' : undefined}
                    aria-sort={sort === column.id ? (order === 'asc' ? 'ascending' : 'descending') : undefined}
                  >
                    <button type="button" class="sort-button" onClick={() => onSort(column.id)}>
                      {column.label}
                      <span aria-hidden="true" class="sort-arrow">
                        {sort === column.id ? (order === 'asc' ? '↑' : '↓') : '↕'}
                      </span>
                    </button>
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr key={row.path} data-path={row.path}>
                  <td class="path-cell">
                    <span class="bar" style={{ width: `${(row.total / max) * 100}%` }} aria-hidden="true" />
                    <span class="path-text">{row.path}</span>
                  </td>
                  <td class="num">{formatNumber(row.human)}</td>
                  <td class="num">{formatNumber(row.ai)}</td>
                  <td class="num">{formatNumber(row.total)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <nav class="pager" aria-label="Top pages pagination">
        <button type="button" class="btn btn-small" disabled={page <= 1 || loading} onClick={() => onPage(page - 1)}>
          ← Previous
        </button>
        <span class="muted small" aria-live="polite">
          {rows.length > 0 ? `Rows ${formatNumber(first)}–${formatNumber(first + rows.length - 1)}` : `Page ${page}`}
        </span>
        <button type="button" class="btn btn-small" disabled={!hasMore || loading} onClick={() => onPage(page + 1)}>
          Next →
        </button>
      </nav>
    </section>
  );
}
