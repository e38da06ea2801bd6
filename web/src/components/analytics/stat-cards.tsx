import type { VisitorCounts } from '../../api/types';
import { formatChange, formatNumber } from '../../lib/format';

const CARDS: Array<{ key: keyof VisitorCounts; label: string; note: string }> = [
  { key: 'human', label: 'Human visitors', note: 'People in a browser' },
  { key: 'ai', label: 'AI visitors', note: 'Assistants and agents acting for a person' },
  { key: 'total', label: 'Total unique visitors', note: 'Each visitor once, human or AI' },
];

/** The three headline numbers, each with its change against the previous period. */
export function StatCards({ current, previous, days }: { current: VisitorCounts; previous: VisitorCounts | null; days: number }) {
  return (
    <ul class="stat-cards" aria-label="Unique visitors">
      {CARDS.map((card) => {
        const change = previous ? formatChange(current[card.key], previous[card.key]) : null;
        return (
          <li key={card.key} class={`card stat-card stat-${card.key}`} data-stat={card.key}>
            <p class="stat-label">{card.label}</p>
            <p class="stat-value" data-testid={`stat-${card.key}`}>
              {formatNumber(current[card.key])}
            </p>
            {change && previous && (
              <p class={`stat-change change-${change.direction}`}>
                <span aria-hidden="true">{change.direction === 'up' ? '▲ ' : change.direction === 'down' ? '▼ ' : ''}</span>
                {change.text}{' '}
                <span class="muted">
                  vs previous {days} days ({formatNumber(previous[card.key])})
                </span>
              </p>
            )}
            <p class="muted small">{card.note}</p>
          </li>
        );
      })}
    </ul>
  );
}
