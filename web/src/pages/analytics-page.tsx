import { useLocation, useRoute } from 'preact-iso';
import { analyticsApi, type SortOrder, type VisitorsSort } from '../api/analytics-api';
import type { Project } from '../api/types';
import { AiReaders } from '../components/analytics/ai-readers';
import { AnalyticsEmptyState } from '../components/analytics/analytics-empty-state';
import { DailyChart } from '../components/analytics/daily-chart';
import { RangePicker } from '../components/analytics/range-picker';
import { StatCards } from '../components/analytics/stat-cards';
import { TopPagesTable } from '../components/analytics/top-pages-table';
import { TrafficBreakdown } from '../components/analytics/traffic-breakdown';
import { ErrorMessage } from '../components/error-message';
import { Loading } from '../components/loading';
import { ProjectLayout } from '../components/project-layout';
import { useResource } from '../hooks/use-resource';
import '../styles/analytics.css';
import { download, toCsv } from '../lib/csv';
import { PRESETS, customRange, lastDay, presetRange, previousRange, type DayRange, type RangePreset } from '../lib/date-range';

const PAGE_SIZE = 25;
const SORTS: VisitorsSort[] = ['total', 'human', 'ai', 'path'];

export default function AnalyticsPage() {
  const { params } = useRoute();
  return (
    <ProjectLayout projectId={params.projectId ?? ''} tab="analytics" title="Analytics">
      {(project) => <AnalyticsContent project={project} />}
    </ProjectLayout>
  );
}

interface ViewState {
  preset: RangePreset;
  range: DayRange;
  sort: VisitorsSort;
  order: SortOrder;
  page: number;
}

/** Everything the page shows is in the URL, so a view can be bookmarked and shared. */
function readState(query: Record<string, string>): ViewState {
  const custom = query.range === 'custom' ? customRange(query.from ?? '', query.to ?? '') : null;
  const preset = PRESETS.find((item) => item.id === query.range) ?? PRESETS[1]!;
  const sort = SORTS.find((item) => item === query.sort) ?? 'total';
  const order: SortOrder = query.order === 'asc' || query.order === 'desc' ? query.order : sort === 'path' ? 'asc' : 'desc';
  const page = Math.max(1, Math.floor(Number(query.page) || 1));
  return custom ? { preset: 'custom', range: custom, sort, order, page } : { preset: preset.id, range: presetRange(preset.days), sort, order, page };
}

function writeState(state: ViewState): string {
  const search = new URLSearchParams();
  search.set('range', state.preset);
  if (state.preset === 'custom') {
    search.set('from', state.range.from);
    search.set('to', lastDay(state.range));
  }
  if (state.sort !== 'total' || state.order !== 'desc') {
    search.set('sort', state.sort);
    search.set('order', state.order);
  }
  if (state.page > 1) search.set('page', String(state.page));
  return `?${search.toString()}`;
}

function AnalyticsContent({ project }: { project: Project }) {
  const location = useLocation();
  const state = readState(location.query);
  const { range } = state;
  const navigate = (next: Partial<ViewState>) => location.route(`${location.path}${writeState({ ...state, ...next })}`, true);
  const rangeKey = `${project.id}:${range.from}:${range.to}`;
  const bounds = { dateFrom: range.from, dateTo: range.to };

  const summary = useResource(async (signal) => {
    const previous = previousRange(range);
    const [daily, traffic, before] = await Promise.all([
      analyticsApi.daily(project.id, bounds, signal),
      analyticsApi.traffic(project.id, bounds, signal),
      analyticsApi.visitors(project.id, { dateFrom: previous.from, dateTo: previous.to, limit: 1 }, signal),
    ]);
    return { daily, traffic, previousTotals: before.totals };
  }, rangeKey);
  // Reads raw hits: a range beyond their retention is a 400, shown as a note, not an error.
  const aiReaders = useResource(async (signal) => {
    const [agents, skewed, errors] = await Promise.all([
      analyticsApi.agents(project.id, { ...bounds, limit: 10 }, signal),
      analyticsApi.pages(project.id, { ...bounds, limit: 10, sort: 'agentSkew' }, signal),
      analyticsApi.agentErrors(project.id, { ...bounds, limit: 10 }, signal),
    ]);
    return { agents, skewed, errors };
  }, rangeKey);
  const table = useResource(
    (signal) =>
      analyticsApi.visitors(project.id, { ...bounds, limit: PAGE_SIZE, offset: (state.page - 1) * PAGE_SIZE, sort: state.sort, order: state.order }, signal),
    `${rangeKey}:${state.sort}:${state.order}:${state.page}`,
  );

  const totals = table.data?.totals;
  const empty = totals !== undefined && summary.data !== undefined && totals.total === 0 && summary.data.traffic.classes.every((row) => row.hits === 0);
  const downloadCsv = () => {
    const rows = table.data?.visitors ?? [];
    const csv = toCsv(
      ['path', 'human', 'ai', 'total'],
      rows.map((row) => [row.path, row.human, row.ai, row.total]),
    );
    download(`visitors-${project.id}-${range.from}-to-${lastDay(range)}-${state.sort}-${state.order}-page${state.page}.csv`, csv);
  };

  return (
    <div class="stack">
      <div class="section-header">
        <h2 class="page-title-inline">Visitors</h2>
        <RangePicker
          preset={state.preset}
          range={range}
          onPreset={(preset) => navigate({ preset, range: presetRange(PRESETS.find((item) => item.id === preset)!.days), page: 1 })}
          onCustom={(first, last) => {
            const custom = customRange(first, last);
            if (custom) navigate({ preset: 'custom', range: custom, page: 1 });
          }}
        />
      </div>
      {table.error && <ErrorMessage error={table.error} title="Could not load the visitors" onRetry={table.reload} />}
      {summary.error && <ErrorMessage error={summary.error} title="Could not load the daily numbers and traffic" onRetry={summary.reload} />}
      {!totals && !table.error && <Loading label="Counting visitors…" />}
      {totals && <StatCards current={totals} previous={summary.data?.previousTotals ?? null} days={range.days} />}
      {empty && <AnalyticsEmptyState projectId={project.id} beaconOn={(project.settings.allowedOrigins ?? []).length > 0} />}
      {summary.data && !empty && <DailyChart report={summary.data.daily} />}
      {table.data && !empty && (
        <TopPagesTable
          rows={table.data.visitors}
          sort={state.sort}
          order={state.order}
          page={state.page}
          pageSize={PAGE_SIZE}
          hasMore={table.data.hasMore}
          loading={table.loading}
          onSort={(sort) =>
            navigate({ sort, order: sort === state.sort ? (state.order === 'asc' ? 'desc' : 'asc') : sort === 'path' ? 'asc' : 'desc', page: 1 })
          }
          onPage={(page) => navigate({ page })}
          onDownload={downloadCsv}
        />
      )}
      {summary.data && !empty && <TrafficBreakdown traffic={summary.data.traffic} />}
      {aiReaders.data && !empty && <AiReaders data={aiReaders.data} />}
      {aiReaders.error?.status === 400 && !empty && <p class="muted">AI agent details need raw hits, which are not kept for this whole range.</p>}
      {aiReaders.error && aiReaders.error.status !== 400 && (
        <ErrorMessage error={aiReaders.error} title="Could not load the AI agent details" onRetry={aiReaders.reload} />
      )}
      {summary.loading && !summary.data && !summary.error && totals && <Loading label="Loading the daily numbers…" />}
    </div>
  );
}
