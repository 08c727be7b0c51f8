// Rankings take turns with the process's I/O (ranking-turns.ts): a reply from another process that
// arrives while rankings are queued is handled after the ranking under way, not after all of them.
import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RankingTurns } from '../../src/modules/discovery/ranking-turns.js';

/** A ranking: synchronous CPU work of `ms` milliseconds. */
function busy(ms: number) {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // spin
  }
}

// The peer is another process, as PostgreSQL is: its reply is ready while this one ranks.
const ECHO = `const s = require('node:net').createServer((c) => c.on('data', (d) => c.write(d)));
s.listen(0, '127.0.0.1', () => console.log(s.address().port));`;

describe('ranking turns', () => {
  let peer: ChildProcess;
  let socket: net.Socket;

  beforeAll(async () => {
    peer = spawn(process.execPath, ['-e', ECHO], { stdio: ['ignore', 'pipe', 'inherit'] });
    const port = await new Promise<number>((resolve) =>
      peer.stdout?.once('data', (d: Buffer) => resolve(Number(d.toString().trim()))),
    );
    socket = net.connect(port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
  });

  afterAll(() => {
    socket?.destroy();
    peer?.kill();
  });

  /** Six rankings of 40 ms queued and a message sent to the peer: the order things happened in. */
  async function race(queueRankings: (rank: () => void) => Promise<void>[]) {
    const order: string[] = [];
    let n = 0;
    const replied = new Promise<void>((resolve) =>
      socket.once('data', () => {
        order.push('reply');
        resolve();
      }),
    );
    socket.write('ping');
    const done = queueRankings(() => {
      busy(40);
      order.push(`rank ${n++}`);
    });
    await Promise.all([...done, replied]);
    return order;
  }

  it('handles a reply that arrives during a ranking before the next ranking starts', async () => {
    const turns = new RankingTurns();
    const order = await race((rank) =>
      Array.from({ length: 6 }, async () => {
        await turns.take();
        rank();
      }),
    );
    expect(order).toHaveLength(7);
    // The reply is ready within the first ranking; on a busy host allow it one more.
    expect(order.indexOf('reply')).toBeLessThanOrEqual(2);
    expect(order.filter((x) => x !== 'reply')).toEqual([0, 1, 2, 3, 4, 5].map((i) => `rank ${i}`));
    expect(turns.queued).toBe(0);
  });

  it('is needed: rankings released together run back to back and the reply waits for all of them', async () => {
    const order = await race((rank) =>
      Array.from({ length: 6 }, async () => {
        await Promise.resolve();
        rank();
      }),
    );
    expect(order.indexOf('reply')).toBe(6);
  });
});
