/** Hands one item to the group writer; resolves with that item's own result. */
export type GroupCommit<Item, Result> = (item: Item) => Promise<Result>;

/**
 * Group commit: `commit` writes a group of items in one transaction, and the items that
 * arrive while `concurrency` groups are being written form the next group (up to
 * `maxItems`, or `maxWeight` by `weightOf`). Writers then share round trips and commits
 * instead of each paying its own, while a few groups in flight keep the database busy
 * during another group's round trips. A failed group fails every item in it, unless
 * `alone` says the failure may be one item's doing: then each item is written again in a
 * group of its own, so one bad item fails alone (`commit` must then be all or nothing, a
 * transaction). Other groups are not affected.
 */
export function createGroupCommit<Item, Result>(options: {
  commit: (items: Item[]) => Promise<Result[]>;
  maxItems: number;
  maxWeight: number;
  weightOf: (item: Item) => number;
  /** Groups written at the same time; default 1. */
  concurrency?: number;
  /** Whether a group's failure may be one item's fault (a bad value), not the database's. */
  alone?: (error: unknown) => boolean;
}): GroupCommit<Item, Result> {
  interface Waiting {
    item: Item;
    resolve: (result: Result) => void;
    reject: (error: unknown) => void;
  }
  const concurrency = options.concurrency ?? 1;
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error('concurrency must be a positive integer');
  const queue: Waiting[] = [];
  let writing = 0;

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

  const commitAlone = async (group: Waiting[]): Promise<void> => {
    for (const waiting of group) {
      try {
        const [result] = await options.commit([waiting.item]);
        waiting.resolve(result!);
      } catch (error) {
        waiting.reject(error);
      }
    }
  };

  const writeGroups = async (): Promise<void> => {
    writing += 1;
    try {
      while (queue.length > 0) {
        const group = nextGroup();
        try {
          const results = await options.commit(group.map((waiting) => waiting.item));
          group.forEach((waiting, index) => waiting.resolve(results[index]!));
        } catch (error) {
          if (group.length > 1 && options.alone?.(error) === true) await commitAlone(group);
          else for (const waiting of group) waiting.reject(error);
        }
      }
    } finally {
      writing -= 1;
    }
  };

  return (item) =>
    new Promise<Result>((resolve, reject) => {
      queue.push({ item, resolve, reject });
      if (writing < concurrency) void writeGroups();
    });
}
