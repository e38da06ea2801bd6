import type { HitClass, TrafficReport } from '../../api/types';
import { formatNumber } from '../../lib/format';

const CLASS_LABELS: Record<HitClass, string> = {
  human: 'Human',
  ai: 'AI assistants and agents',
  'ai-search': 'AI search indexers',
  'ai-training': 'AI training crawlers',
  bot: 'Other bots',
};

/** Hits and visitors by class (all five) and by named agent, from /traffic. */
export function TrafficBreakdown({ traffic }: { traffic: TrafficReport }) {
  const maxHits = Math.max(1, ...traffic.classes.map((row) => row.hits));
  return (
    <div class="breakdown-grid">
      <section class="card" aria-labelledby="classes-heading">
        <h2 id="classes-heading">By class</h2>
        <table class="table table-compact" data-testid="classes-table">
          <thead>
            <tr>
              <th scope="col">Class</th>
              <th scope="col" class="num">
                Hits
              </th>
              <th scope="col" class="num">
                Visitors
              </th>
            </tr>
          </thead>
          <tbody>
            {traffic.classes.map((row) => (
              <tr key={row.class} data-class={row.class}>
                <td class="path-cell">
                  <span class={`bar bar-${row.class}`} style={{ width: `${(row.hits / maxHits) * 100}%` }} aria-hidden="true" />
                  <span class="path-text">
                    <span class={`class-tag class-${row.class}`}>{row.class}</span> {CLASS_LABELS[row.class]}
                  </span>
                </td>
                <td class="num">{formatNumber(row.hits)}</td>
                <td class="num">{formatNumber(row.visitors)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <section class="card" aria-labelledby="agents-heading">
        <h2 id="agents-heading">By AI agent and bot</h2>
        {traffic.agents.length === 0 ? (
          <p class="muted">No named agent or bot visited in this range.</p>
        ) : (
          <div class="table-scroll tall" tabIndex={0} role="region" aria-label="Agents">
            <table class="table table-compact" data-testid="agents-table">
              <thead>
                <tr>
                  <th scope="col">Agent</th>
                  <th scope="col">Class</th>
                  <th scope="col" class="num">
                    Hits
                  </th>
                  <th scope="col" class="num">
                    Visitors
                  </th>
                </tr>
              </thead>
              <tbody>
                {traffic.agents.map((row) => (
                  <tr key={`${row.agent}:${row.class}`}>
                    <td>{row.agent}</td>
                    <td>
                      <span class={`class-tag class-${row.class}`}>{row.class}</span>
                    </td>
                    <td class="num">{formatNumber(row.hits)}</td>
                    <td class="num">{formatNumber(row.visitors)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {traffic.hasMoreAgents && <p class="muted small">Only the 100 busiest agents are listed.</p>}
      </section>
    </div>
  );
}
