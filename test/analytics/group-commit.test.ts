import { describe, expect, test } from 'vitest';
import { createGroupCommit } from '../../src/analytics/group-commit.js';

function gate() {
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('createGroupCommit', () => {
  test('items that arrive while a group is written go together in the next group, in order, each with its own result', async () => {
    const groups: number[][] = [];
    const first = gate();
    const write = createGroupCommit<number, string>({
      commit: async (items) => {
        groups.push(items);
        if (groups.length === 1) await first.opened;
        return items.map((item) => `done ${item}`);
      },
      maxItems: 10,
      maxWeight: 1_000,
      weightOf: () => 1,
    });
    const one = write(1);
    const later = [write(2), write(3), write(4)];
    first.open();
    expect(await Promise.all([one, ...later])).toEqual(['done 1', 'done 2', 'done 3', 'done 4']);
    expect(groups).toEqual([[1], [2, 3, 4]]);
  });

  test('groups are capped by count and by weight, but a single heavy item still goes alone', async () => {
    const groups: number[][] = [];
    const first = gate();
    const write = createGroupCommit<number, number>({
      commit: async (items) => {
        groups.push(items);
        if (groups.length === 1) await first.opened;
        return items;
      },
      maxItems: 3,
      maxWeight: 10,
      weightOf: (item) => item,
    });
    const pending = [write(1), write(2), write(2), write(2), write(2), write(50), write(4), write(4), write(4)];
    first.open();
    await Promise.all(pending);
    expect(groups).toEqual([[1], [2, 2, 2], [2], [50], [4, 4], [4]]);
  });

  test('a failed group fails each of its items, and the writer goes on with the next group', async () => {
    const first = gate();
    let calls = 0;
    const write = createGroupCommit<string, string>({
      commit: async (items) => {
        calls += 1;
        if (calls === 1) await first.opened;
        if (items.includes('bad')) throw new Error('constraint violated');
        return items;
      },
      maxItems: 2,
      maxWeight: 100,
      weightOf: () => 1,
    });
    const leader = write('ok-1');
    const doomed = [write('bad'), write('ok-2')];
    const after = write('ok-3');
    first.open();
    expect(await leader).toBe('ok-1');
    expect((await Promise.allSettled(doomed)).map((result) => result.status)).toEqual(['rejected', 'rejected']);
    expect(await after).toBe('ok-3');
    expect(await write('ok-4')).toBe('ok-4');
  });
});
