import { useEffect, useState } from 'preact/hooks';
import { PRESETS, customRange, lastDay, type DayRange, type RangePreset } from '../../lib/date-range';

interface Props {
  preset: RangePreset;
  range: DayRange;
  onPreset: (preset: Exclude<RangePreset, 'custom'>) => void;
  onCustom: (first: string, last: string) => void;
}

/** 7, 30 or 90 days, or two dates (both included). All days are UTC days. */
export function RangePicker({ preset, range, onPreset, onCustom }: Props) {
  const [editing, setEditing] = useState(preset === 'custom');
  const [first, setFirst] = useState(range.from);
  const [last, setLast] = useState(lastDay(range));
  useEffect(() => {
    setFirst(range.from);
    setLast(lastDay(range));
  }, [range.from, range.to]);
  const valid = customRange(first, last) !== null;

  return (
    <div class="range-picker">
      <div class="segmented" role="group" aria-label="Date range">
        {PRESETS.map((item) => (
          <button
            key={item.id}
            type="button"
            class="segment"
            aria-pressed={preset === item.id && !editing}
            onClick={() => {
              setEditing(false);
              onPreset(item.id);
            }}
          >
            {item.days} days
          </button>
        ))}
        <button
          type="button"
          class="segment"
          aria-pressed={editing || preset === 'custom'}
          aria-expanded={editing}
          aria-controls="custom-range"
          onClick={() => setEditing(true)}
        >
          Custom
        </button>
      </div>
      {editing && (
        <form
          id="custom-range"
          class="custom-range"
          onSubmit={(event) => {
            event.preventDefault();
            if (valid) onCustom(first, last);
          }}
        >
          <label>
            From <input type="date" value={first} max={last} required onInput={(event) => setFirst(event.currentTarget.value)} />
          </label>
          <label>
            To <input type="date" value={last} min={first} required onInput={(event) => setLast(event.currentTarget.value)} />
          </label>
          <button type="submit" class="btn btn-small btn-primary" disabled={!valid}>
            Apply
          </button>
          {!valid && <span class="field-error">Pick a start on or before the end, at most 366 days.</span>}
        </form>
      )}
      <p class="muted small range-caption">
        UTC days, {range.from} to {lastDay(range)} inclusive
      </p>
    </div>
  );
}
