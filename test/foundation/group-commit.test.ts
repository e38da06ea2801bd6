import { describe, expect, test } from 'vitest';
import { createGroupCommit } from '../../src/db/group-commit.js';

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

  test('with `alone`, the items of a group that failed for one of them are written again one by one, and only that one fails', async () => {
    const first = gate();
    const groups: string[][] = [];
    const write = createGroupCommit<string, string>({
      commit: async (items) => {
        groups.push(items);
        if (groups.length === 1) await first.opened;
        if (items.includes('bad')) throw new Error('constraint violated');
        if (items.includes('down')) throw new Error('connection lost');
        return items.map((item) => `done ${item}`);
      },
      maxItems: 10,
      maxWeight: 100,
      weightOf: () => 1,
      alone: (error) => (error as Error).message === 'constraint violated',
    });
    const leader = write('ok-1');
    const grouped = [write('ok-2'), write('bad'), write('ok-3')];
    first.open();
    expect(await leader).toBe('done ok-1');
    const settled = await Promise.allSettled(grouped);
    expect(settled.map((result) => (result.status === 'fulfilled' ? result.value : (result.reason as Error).message))).toEqual([
      'done ok-2',
      'constraint violated',
      'done ok-3',
    ]);
    expect(groups).toEqual([['ok-1'], ['ok-2', 'bad', 'ok-3'], ['ok-2'], ['bad'], ['ok-3']]);
    // A failure `alone` does not claim (a lost database) fails the whole group at once, as before.
    const blocker = gate();
    const slow = createGroupCommit<string, string>({
      commit: async (items) => {
        if (items[0] === 'first') await blocker.opened;
        if (items.includes('down')) throw new Error('connection lost');
        return items;
      },
      maxItems: 10,
      maxWeight: 100,
      weightOf: () => 1,
      alone: (error) => (error as Error).message === 'constraint violated',
    });
    const head = slow('first');
    const outage = [slow('a'), slow('down'), slow('b')];
    blocker.open();
    await head;
    expect((await Promise.allSettled(outage)).map((result) => result.status)).toEqual(['rejected', 'rejected', 'rejected']);
  });

  test('with concurrency 2, two groups are written at once and the rest queue into the next free writer', async () => {
    const started: number[][] = [];
    const gates = new Map<number, ReturnType<typeof gate>>();
    let inFlight = 0;
    let mostInFlight = 0;
    const write = createGroupCommit<number, number>({
      commit: async (items) => {
        started.push(items);
        inFlight += 1;
        mostInFlight = Math.max(mostInFlight, inFlight);
        const own = gate();
        gates.set(items[0]!, own);
        await own.opened;
        inFlight -= 1;
        return items.map((item) => item * 10);
      },
      maxItems: 10,
      maxWeight: 100,
      weightOf: () => 1,
      concurrency: 2,
    });
    const first = write(1);
    const second = write(2);
    const queued = [write(3), write(4), write(5)];
    expect(started).toEqual([[1], [2]]);
    gates.get(2)!.open();
    expect(await second).toBe(20);
    expect(started).toEqual([[1], [2], [3, 4, 5]]);
    gates.get(3)!.open();
    expect(await Promise.all(queued)).toEqual([30, 40, 50]);
    gates.get(1)!.open();
    expect(await first).toBe(10);
    expect(mostInFlight).toBe(2);
  });

  test('concurrency must be a positive integer', () => {
    expect(() => createGroupCommit({ commit: async () => [], maxItems: 1, maxWeight: 1, weightOf: () => 1, concurrency: 0 })).toThrow(/concurrency/);
  });
});
