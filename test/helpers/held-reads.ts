// A real database whose answers are held back: a read runs at once (it sees the rows as they are), but
// its answer reaches the caller only after `release()`. For tests of a read that overlaps a change.
import type { Database } from '../../src/db/index.js';

export function heldReads(db: Database) {
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  let done: () => void = () => {};
  /** Resolves once a read has run in the database (its answer is still held). */
  const read = new Promise<void>((resolve) => {
    done = resolve;
  });
  const orm = {
    execute: async (query: Parameters<Database['orm']['execute']>[0]) => {
      const result = await db.orm.execute(query);
      done();
      await held;
      return result;
    },
  } as unknown as Database['orm'];
  return { orm, read, release };
}
