// Carries chosen in-process events to every other instance (cluster workers, other hosts) over Redis
// pub/sub, so a cache another instance keeps (execution's resolved endpoints, discovery's index) is dropped
// at once instead of when its TTL runs out. Best effort by design: a message lost while Redis is away
// leaves the TTLs as the bound, exactly as without Redis.
import type { EventEmitter } from 'node:events';
import type { Redis } from 'ioredis';
import { randomHex } from './secrets.js';

export interface EventRelay {
  close(): Promise<void>;
}

/**
 * Publishes each local emit of `names` on `<prefix>events`, and re-emits locally what other instances
 * publish there (never its own messages, and never re-publishing what it received).
 */
export function relayEvents(
  redis: Redis,
  prefix: string,
  events: EventEmitter,
  names: readonly string[],
  onError: (err: unknown) => void,
): EventRelay {
  const channel = `${prefix}events`;
  const self = randomHex(8);
  let receiving = false;
  const publishers = names.map((name) => {
    const publish = (payload: unknown) => {
      if (receiving) return;
      redis.publish(channel, JSON.stringify({ from: self, name, payload })).catch(onError);
    };
    events.on(name, publish);
    return () => events.off(name, publish);
  });
  // A subscribed connection can do nothing else: its own.
  const subscriber = redis.duplicate();
  subscriber.on('error', () => {});
  subscriber.on('message', (_channel: string, text: string) => {
    let msg: { from?: string; name?: string; payload?: unknown };
    try {
      msg = JSON.parse(text);
    } catch {
      return;
    }
    if (msg.from === self || !msg.name || !names.includes(msg.name)) return;
    receiving = true;
    try {
      events.emit(msg.name, msg.payload);
    } finally {
      receiving = false;
    }
  });
  const subscribed = subscriber.subscribe(channel).catch(onError);
  return {
    async close() {
      for (const off of publishers) off();
      await subscribed;
      subscriber.disconnect();
    },
  };
}
