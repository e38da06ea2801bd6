import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import type { DailyReport } from '../../api/types';
import { useTheme } from '../../hooks/use-theme';
import { formatDay, formatNumber } from '../../lib/format';

const HEIGHT = 260;

function cssVar(name: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
}

/** Human and AI unique visitors per UTC day, drawn by uPlot; a table carries the same numbers. */
export function DailyChart({ report }: { report: DailyReport }) {
  const container = useRef<HTMLDivElement>(null);
  const theme = useTheme();
  const days = report.days;

  useEffect(() => {
    const element = container.current;
    if (!element) return undefined;
    const axis = { stroke: cssVar('--text-muted'), grid: { stroke: cssVar('--border'), width: 1 }, ticks: { stroke: cssVar('--border'), width: 1 } };
    const options: uPlot.Options = {
      width: Math.max(280, element.clientWidth),
      height: HEIGHT,
      // The API's days are UTC days; uPlot would otherwise label them in the browser's zone.
      tzDate: (seconds) => uPlot.tzDate(new Date(seconds * 1000), 'Etc/UTC'),
      scales: { x: { time: true }, y: { range: (_self, _min, max) => [0, Math.max(4, Math.ceil(max * 1.1))] } },
      axes: [
        { ...axis, values: (_self, ticks) => ticks.map((tick) => new Date(tick * 1000).toISOString().slice(5, 10)) },
        { ...axis, size: 50, values: (_self, ticks) => ticks.map((tick) => (Number.isInteger(tick) ? formatNumber(tick) : '')) },
      ],
      series: [
        { label: 'Day', value: (_self, seconds: number | null) => (seconds === null ? '—' : formatDay(new Date(seconds * 1000).toISOString().slice(0, 10))) },
        { label: 'Human', stroke: cssVar('--chart-human'), fill: `${cssVar('--chart-human')}22`, width: 2, points: { show: days.length <= 31 } },
        { label: 'AI', stroke: cssVar('--chart-ai'), fill: `${cssVar('--chart-ai')}22`, width: 2, points: { show: days.length <= 31 } },
      ],
      legend: { live: true },
      cursor: { drag: { x: false, y: false } },
    };
    const data: uPlot.AlignedData = [days.map((day) => Date.parse(`${day.date}T00:00:00Z`) / 1000), days.map((day) => day.human), days.map((day) => day.ai)];
    const chart = new uPlot(options, data, element);
    const observer = new ResizeObserver(() => chart.setSize({ width: Math.max(280, element.clientWidth), height: HEIGHT }));
    observer.observe(element);
    return () => {
      observer.disconnect();
      chart.destroy();
    };
  }, [days, theme]);

  const humanTotal = days.reduce((sum, day) => sum + day.human, 0);
  const aiTotal = days.reduce((sum, day) => sum + day.ai, 0);
  return (
    <section class="card chart-card" aria-labelledby="daily-heading">
      <h2 id="daily-heading">Visitors per day</h2>
      <div
        ref={container}
        class="chart"
        role="img"
        aria-label={`Line chart of ${days.length} days: ${formatNumber(humanTotal)} human and ${formatNumber(aiTotal)} AI visitor-days in total. The table below has every day.`}
      />
      <details class="chart-table">
        <summary>Daily numbers as a table</summary>
        <div class="table-scroll" tabIndex={0} role="region" aria-label="Daily visitors">
          <table class="table table-compact" data-testid="daily-table">
            <thead>
              <tr>
                <th scope="col">Day (UTC)</th>
                <th scope="col" class="num">
                  Human
                </th>
                <th scope="col" class="num">
                  AI
                </th>
                <th scope="col" class="num">
                  Total
                </th>
              </tr>
            </thead>
            <tbody>
              {days.map((day) => (
                <tr key={day.date} data-day={day.date}>
                  <td>{day.date}</td>
                  <td class="num">{formatNumber(day.human)}</td>
                  <td class="num">{formatNumber(day.ai)}</td>
                  <td class="num">{formatNumber(day.total)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </section>
  );
}
