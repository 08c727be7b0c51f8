// The key stems of every slot (the distinct stems of an endpoint's slug and tags, as vocabulary ids),
// in one pool of integers: the ranking sums a credit per key stem for thousands of candidates per query,
// and one typed array per endpoint made each of those a pointer chase.
export interface KeyTable {
  /** Keys of slot s: pool[start[s]] .. pool[start[s] + count[s] - 1]. */
  start: Int32Array;
  count: Int32Array;
  pool: Int32Array;
  /** Pool cells written (including those of replaced slots), and cells live slots use. */
  used: number;
  live: number;
}

export function emptyKeyTable(slots: number): KeyTable {
  return {
    start: new Int32Array(slots),
    count: new Int32Array(slots),
    pool: new Int32Array(slots * 8),
    used: 0,
    live: 0,
  };
}

function grown(array: Int32Array, size: number): Int32Array {
  if (array.length >= size) return array;
  const bigger = new Int32Array(Math.ceil(size * 1.5) + 16);
  bigger.set(array);
  return bigger;
}

/** Sets the keys of `slot` (appended to the pool; the pool is compacted once half of it is stale). */
export function setKeys(table: KeyTable, slot: number, ids: ArrayLike<number>) {
  clearKeys(table, slot);
  if (table.used > 2 * table.live + 4096) compact(table);
  table.start = grown(table.start, slot + 1);
  table.count = grown(table.count, slot + 1);
  table.pool = grown(table.pool, table.used + ids.length);
  table.start[slot] = table.used;
  table.count[slot] = ids.length;
  for (let k = 0; k < ids.length; k++) table.pool[table.used + k] = ids[k] as number;
  table.used += ids.length;
  table.live += ids.length;
}

export function clearKeys(table: KeyTable, slot: number) {
  if (slot >= table.count.length) return;
  table.live -= table.count[slot] as number;
  table.count[slot] = 0;
}

function compact(table: KeyTable) {
  const pool = new Int32Array(Math.ceil(table.live * 1.5) + 16);
  let used = 0;
  for (let slot = 0; slot < table.count.length; slot++) {
    const n = table.count[slot] as number;
    if (n === 0) continue;
    pool.set(table.pool.subarray(table.start[slot], (table.start[slot] as number) + n), used);
    table.start[slot] = used;
    used += n;
  }
  table.pool = pool;
  table.used = used;
}
