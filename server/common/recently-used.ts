// A bounded cache of values that never change once made: the most recently used ones are kept, up to a total size.

/**
 * What an entry costs beyond the size its caller gives (the map's entry, the record, the key when it is not counted in
 * the size), in the same units: a cache of capacity C holds at most C / ENTRY_OVERHEAD entries, however small the
 * values a caller can make it keep (server/docs/limits.md, "What grows with requests").
 */
export const ENTRY_OVERHEAD = 256;

export class RecentlyUsed<K, V> {
  private readonly entries = new Map<K, { value: V; size: number }>();
  private total = 0;

  /**
   * `capacity`: the total size of the values kept; `largest`: the size above which a value is not kept at all (so that
   * one value cannot push out all the others). Sizes are in the caller's unit (characters of the text a value came from).
   */
  constructor(
    readonly capacity: number,
    readonly largest = capacity,
  ) {}

  /** The value kept for `key`, now the most recently used one; undefined when none is kept. */
  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    // Most recently used last: a Map iterates in insertion order.
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  /**
   * Keeps `value` (of `size`, ENTRY_OVERHEAD added) unless it is larger than `largest`, dropping the least recently
   * used past `capacity`.
   */
  set(key: K, value: V, valueSize: number): void {
    const size = valueSize + ENTRY_OVERHEAD;
    if (size > this.largest) return;
    const previous = this.entries.get(key);
    if (previous) {
      this.entries.delete(key);
      this.total -= previous.size;
    }
    this.entries.set(key, { value, size });
    this.total += size;
    for (const [oldest, entry] of this.entries) {
      if (this.total <= this.capacity) break;
      this.entries.delete(oldest);
      this.total -= entry.size;
    }
  }

  /** How many values are kept, and their total size (for tests). */
  get kept(): { entries: number; size: number } {
    return { entries: this.entries.size, size: this.total };
  }

  /** Drops every value. */
  clear(): void {
    this.entries.clear();
    this.total = 0;
  }
}
