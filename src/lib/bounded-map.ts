// A Map with a size limit for per-app caches: setting a new key when full drops the oldest entry (a Map
// keeps insertion order). Entries are cheap to read again, so no recency bookkeeping.
export class BoundedMap<K, V> extends Map<K, V> {
  constructor(private readonly maxEntries: number) {
    super();
  }

  override set(key: K, value: V): this {
    if (this.size >= this.maxEntries && !this.has(key)) {
      const oldest = this.keys().next();
      if (!oldest.done) this.delete(oldest.value);
    }
    return super.set(key, value);
  }
}
