// Per-app execution state: endpoint cache, provider connection pool, the debit coalescer and the
// group-commit writer of call outcomes. buildApp() creates it once (createExecutionRuntime), hangs it on
// the app as `app.execution` and closes it in onClose, so two apps in one process never share it.
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

declare module 'fastify' {
  interface FastifyInstance {
    execution: ExecutionRuntime;
  }
}

/** What paid execution needs from its app: the adapters and the execution state (a FastifyInstance is one). */
export interface ExecutionContext {
  deps: AppDeps;
  execution: ExecutionRuntime;
}

export function createExecutionRuntime(deps: AppDeps, log: FastifyBaseLogger): ExecutionRuntime {
  const resolver = new EndpointResolver(deps.secrets.encryptionKey);
  const onCatalogChanged = ({ providerId }: { providerId: string }) => resolver.invalidate(providerId);
  deps.events.on('catalog.changed', onCatalogChanged);
  const agent = createProviderAgent(providerEgressPolicy(deps.config));
  const settleQueue = new SettleQueue(deps.db, log);
  let closed: Promise<void> | undefined;
  return {
    resolver,
    agent,
    settleQueue,
    debits: new DebitCoalescer(deps.db, (size) => deps.events.emit('debit.statement', { size })),
    close() {
      closed ??= (async () => {
        deps.events.off('catalog.changed', onCatalogChanged);
        await settleQueue.close();
        await agent.close();
      })();
      return closed;
    },
  };
}

/**
 * Resolves once the call outcomes this instance has queued are written: views that show calls as pending
 * wait for it, so a caller sees its own answered calls as settled.
 */
export function outcomesWritten(app: { execution: ExecutionRuntime }): Promise<void> {
  return app.execution.settleQueue.flush();
}
