/** Hands one item to the group writer; resolves with that item's own result. */
export type GroupCommit<Item, Result> = (item: Item) => Promise<Result>;

/**
 * Group commit: `commit` writes a group of items in one transaction, one group at a time,
 * and the items that arrive while a group is being written form the next group (up to
 * `maxItems`, or `maxWeight` by `weightOf`). Concurrent writers that would queue on the
 * same lock anyway then share its round trips and its commit. A failed group fails every
 * item in it; the next group starts afresh.
 */
export function createGroupCommit<Item, Result>(options: {
  commit: (items: Item[]) => Promise<Result[]>;
  maxItems: number;
  maxWeight: number;
  weightOf: (item: Item) => number;
}): GroupCommit<Item, Result> {
  type Waiting = { item: Item; resolve: (result: Result) => void; reject: (error: unknown) => void };
  const queue: Waiting[] = [];
  let writing = false;

  const nextGroup = (): Waiting[] => {
    let count = 0;
    let weight = 0;
    // Always at least one item, however heavy, so nothing waits forever.
    while (count < queue.length && count < options.maxItems) {
      const itemWeight = options.weightOf(queue[count]!.item);
      if (count > 0 && weight + itemWeight > options.maxWeight) break;
      weight += itemWeight;
      count += 1;
    }
    return queue.splice(0, count);
  };

  const drain = async (): Promise<void> => {
    writing = true;
    try {
      while (queue.length > 0) {
        const group = nextGroup();
        try {
          const results = await options.commit(group.map((waiting) => waiting.item));
          group.forEach((waiting, index) => waiting.resolve(results[index]!));
        } catch (error) {
          for (const waiting of group) waiting.reject(error);
        }
      }
    } finally {
      writing = false;
    }
  };

  return (item) =>
    new Promise<Result>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      if (!writing) void drain();
    });
}
