/**
 * Remembers dictionary ids (pages, agents, user agents) so a batch usually needs no
 * database round trip to encode its strings. Ids never change once assigned, so the
 * cache is never stale; it is only bounded, by starting over when full.
 */
export class DictionaryCache<Key> {
  private entries = new Map<Key, number>();

  constructor(private readonly maxEntries: number) {}

  /**
   * Makes sure every key has its id here, asking `load` once for all the missing ones,
   * and returns the lookup for them (valid until the next call).
   */
  async resolve(keys: Iterable<Key>, load: (missing: Key[]) => Promise<Map<Key, number>>): Promise<(key: Key) => number> {
    const missing = new Set<Key>();
    for (const key of keys) if (!this.entries.has(key)) missing.add(key);
    if (missing.size > 0) {
      const loaded = await load([...missing]);
      for (const key of missing) if (!loaded.has(key)) throw new Error('a dictionary entry was not created');
      if (this.entries.size + loaded.size > this.maxEntries) {
        // Start over, keeping what this call needs.
        const previous = this.entries;
        this.entries = new Map(loaded);
        for (const key of keys) if (!this.entries.has(key)) this.entries.set(key, previous.get(key)!);
      } else {
        for (const [key, id] of loaded) this.entries.set(key, id);
      }
    }
    const entries = this.entries;
    return (key) => entries.get(key)!;
  }
}
