import { describe, expect, test } from 'vitest';
import { createBatchedRead } from '../../src/db/batched-read.js';

interface Row {
  id: string;
  value: number;
}

function recordingLoad(rows: Row[]) {
  const calls: string[][] = [];
  let gate: Promise<void> = Promise.resolve();
  const load = async (keys: string[]): Promise<Row[]> => {
    calls.push(keys);
    await gate;
    return rows.filter((row) => keys.includes(row.id));
  };
  return {
    calls,
    load,
    hold: (until: Promise<void>) => {
      gate = until;
    },
  };
}

describe('createBatchedRead', () => {
  test('lookups made together go out as one query, each key once, and each caller gets its own row', async () => {
    const { calls, load } = recordingLoad([
      { id: 'a', value: 1 },
      { id: 'b', value: 2 },
    ]);
    const read = createBatchedRead(load, (row) => row.id);
    const answers = await Promise.all([read('a'), read('b'), read('a'), read('missing')]);
    expect(answers).toEqual([{ id: 'a', value: 1 }, { id: 'b', value: 2 }, { id: 'a', value: 1 }, undefined]);
    expect(calls).toEqual([['a', 'b', 'missing']]);
  });

  test('a lookup never joins a query already sent, so it cannot get an answer read before it began', async () => {
    const { calls, load, hold } = recordingLoad([{ id: 'a', value: 1 }]);
    let open: () => void = () => {};
    hold(new Promise<void>((resolve) => (open = resolve)));
    const read = createBatchedRead(load, (row) => row.id);
    const first = read('a');
    await new Promise((resolve) => setImmediate(resolve));
    expect(calls).toHaveLength(1);
    const second = read('a');
    open();
    await Promise.all([first, second]);
    expect(calls).toEqual([['a'], ['a']]);
  });

  test('a failed query fails every lookup in its batch, and the next batch starts clean', async () => {
    let fail = true;
    const read = createBatchedRead<Row>(
      async (keys) => {
        if (fail) throw new Error('database went away');
        return keys.map((id) => ({ id, value: 0 }));
      },
      (row) => row.id,
    );
    const results = await Promise.allSettled([read('a'), read('b')]);
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    fail = false;
    expect(await read('a')).toEqual({ id: 'a', value: 0 });
  });

  test('a batch is capped: more keys than the cap go out as several queries', async () => {
    const { calls, load } = recordingLoad([]);
    const read = createBatchedRead(load, (row) => row.id);
    await Promise.all(Array.from({ length: 600 }, (_, index) => read(`k${index}`)));
    expect(calls.map((keys) => keys.length)).toEqual([256, 256, 88]);
  });
});
