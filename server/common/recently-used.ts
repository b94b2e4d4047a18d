// A bounded cache of values that never change once made: the most recently used ones are kept, up to a total size.

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

  /** Keeps `value` (of `size`) unless it is larger than `largest`, dropping the least recently used past `capacity`. */
  set(key: K, value: V, size: number): void {
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

  /** Drops every value. */
  clear(): void {
    this.entries.clear();
    this.total = 0;
  }
}
