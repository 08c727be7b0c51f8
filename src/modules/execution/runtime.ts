// Per-process execution state tied to one AppDeps: endpoint cache, provider connection pool, and the
// group-commit writer of call outcomes.

import type { FastifyBaseLogger } from 'fastify';
import type { Agent } from 'undici';
import type { AppDeps } from '../../deps.js';
import { providerEgressPolicy } from '../../lib/egress.js';
import { DebitCoalescer } from './debit-coalescer.js';
import { createProviderAgent } from './forward.js';
import { EndpointResolver } from './resolve.js';
import { SettleQueue } from './settle-queue.js';

export interface ExecutionRuntime {
  resolver: EndpointResolver;
  agent: Agent;
  settleQueue: SettleQueue;
  debits: DebitCoalescer;
  close(): Promise<void>;
}

const runtimes = new WeakMap<AppDeps, ExecutionRuntime>();

/** The execution state of `deps` (created on first use; `log` is taken from the first caller that gives one). */
export function executionRuntime(deps: AppDeps, log?: FastifyBaseLogger): ExecutionRuntime {
  let rt = runtimes.get(deps);
  if (rt) return rt;
  const resolver = new EndpointResolver(deps.secrets.encryptionKey);
  const onCatalogChanged = ({ providerId }: { providerId: string }) => resolver.invalidate(providerId);
  deps.events.on('catalog.changed', onCatalogChanged);
  const agent = createProviderAgent(providerEgressPolicy(deps.config));
  const settleQueue = new SettleQueue(deps.db, log ?? console);
  let closed: Promise<void> | undefined;
  rt = {
    resolver,
    agent,
    settleQueue,
    debits: new DebitCoalescer(deps.db),
    // Idempotent: apps that share one AppDeps (tests) each close it.
    close() {
      closed ??= (async () => {
        if (runtimes.get(deps) === rt) runtimes.delete(deps);
        deps.events.off('catalog.changed', onCatalogChanged);
        await settleQueue.flush();
        await agent.close();
      })();
      return closed;
    },
  };
  runtimes.set(deps, rt);
  return rt;
}

/**
 * Resolves once the call outcomes this instance has queued are written: views that show calls as pending
 * wait for it, so a caller sees its own answered calls as settled.
 */
export function outcomesWritten(deps: AppDeps): Promise<void> {
  return runtimes.get(deps)?.settleQueue.flush() ?? Promise.resolve();
}
