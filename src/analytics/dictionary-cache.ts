/**
 * Remembers dictionary ids (pages, agents, user agents) so a batch usually needs no
 * database round trip to encode its strings. Ids never change once assigned, so the
 * cache is never stale; it is only bounded, by starting over when full.
 */
export class DictionaryCache<Key> {
  private entries = new Map<Key, number>();

  constructor(private readonly maxEntries: number) {}

  /** Ids for every key, asking `load` once for all the missing ones. */
  async resolve(keys: Iterable<Key>, load: (missing: Key[]) => Promise<Map<Key, number>>): Promise<Map<Key, number>> {
    const found = new Map<Key, number>();
    const missing = new Set<Key>();
    for (const key of keys) {
      if (found.has(key)) continue;
      const id = this.entries.get(key);
      if (id === undefined) missing.add(key);
      else found.set(key, id);
    }
    if (missing.size === 0) return found;
    const loaded = await load([...missing]);
    if (this.entries.size + loaded.size > this.maxEntries) this.entries = new Map();
    for (const key of missing) {
      const id = loaded.get(key);
      if (id === undefined) throw new Error('a dictionary entry was not created');
      this.entries.set(key, id);
      found.set(key, id);
    }
    return found;
  }
}
